WITH s AS (
    SELECT match_id, side, seat FROM filtered_seats($since, $until, $event, $deck, $player)
), taken AS (
    SELECT match_id, turn, player, count(*) AS damage, count(*) FILTER (WHERE ig_played) AS ignited
    FROM life GROUP BY ALL
)
SELECT t.turn,
       s.seat AS key,
       count(*) AS games,
       CAST(sum(coalesce(k.damage, 0)) AS BIGINT) AS damage,
       CAST(sum(coalesce(k.ignited, 0)) AS BIGINT) AS ignitions
FROM s
JOIN turns t ON t.match_id = s.match_id
LEFT JOIN taken k ON k.match_id = s.match_id AND k.turn = t.turn AND k.player = s.side
GROUP BY ALL
