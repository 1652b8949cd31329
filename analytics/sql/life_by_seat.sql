WITH s AS (
    SELECT match_id, side, seat, result FROM filtered_seats($since, $until, $event, $deck, $player)
), taken AS (
    SELECT match_id, player, count(*) AS damage, count(*) FILTER (WHERE ig_played) AS ignited
    FROM life GROUP BY ALL
), opp_turns AS (
    SELECT match_id, player, count(*) AS turns FROM turns GROUP BY ALL
), behind AS (
    SELECT match_id, bool_or(p1_life < p2_life) AS p1_behind, bool_or(p2_life < p1_life) AS p2_behind
    FROM turns GROUP BY ALL
), per_seat AS (
    SELECT s.seat, s.result,
           coalesce(t.damage, 0) AS damage,
           coalesce(t.ignited, 0) AS ignited,
           coalesce(o.turns, 0) AS opp_turns,
           coalesce(CASE WHEN s.side = 'P1' THEN b.p1_behind ELSE b.p2_behind END, false) AS was_behind
    FROM s
    LEFT JOIN taken t ON t.match_id = s.match_id AND t.player = s.side
    LEFT JOIN opp_turns o ON o.match_id = s.match_id AND o.player <> s.side
    LEFT JOIN behind b ON b.match_id = s.match_id
)
SELECT seat AS key,
       count(*) AS games,
       CAST(sum(opp_turns) AS BIGINT) AS opponent_turns,
       CAST(sum(damage) AS BIGINT) AS damage,
       CAST(sum(ignited) AS BIGINT) AS ignitions,
       count(*) FILTER (WHERE result IS NOT NULL AND was_behind) AS behind_games,
       count(*) FILTER (WHERE result = 'win' AND was_behind) AS comebacks
FROM per_seat
GROUP BY ALL
