WITH s AS (
    SELECT match_id, side, result FROM filtered_seats($since, $until, $event, $deck, $player)
    WHERE result IS NOT NULL
), played AS (
    SELECT DISTINCT match_id, player, card FROM (
        SELECT match_id, player, card FROM plays
        UNION ALL SELECT match_id, player, revealed FROM ignitions WHERE played
        UNION ALL SELECT match_id, player, card FROM life WHERE ig_played)
), held AS (
    SELECT DISTINCT match_id, player, card FROM draws WHERE source <> 'mulliganed'
), p AS (
    SELECT x.card, count(*) AS games, count(*) FILTER (WHERE s.result = 'win') AS wins
    FROM played x JOIN s ON s.match_id = x.match_id AND s.side = x.player GROUP BY ALL
), h AS (
    SELECT x.card, count(*) AS games, count(*) FILTER (WHERE s.result = 'win') AS wins
    FROM held x JOIN s ON s.match_id = x.match_id AND s.side = x.player GROUP BY ALL
), names AS (
    SELECT code, any_value(name) AS name FROM card_catalog GROUP BY ALL
)
SELECT coalesce(p.card, h.card) AS key,
       n.name,
       coalesce(p.games, 0) AS played_games,
       coalesce(p.wins, 0) AS played_wins,
       coalesce(h.games, 0) AS hand_games,
       coalesce(h.wins, 0) AS hand_wins
FROM p FULL JOIN h ON h.card = p.card
LEFT JOIN names n ON n.code = coalesce(p.card, h.card)
