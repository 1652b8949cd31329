WITH s AS (
    SELECT match_no, side, result FROM filtered_seats($since, $until, $event, $deck, $player)
    WHERE result IS NOT NULL
), c AS (
    SELECT g.card, g.played > 0 AS played, g.opening OR g.drawn > 0 AS held, s.result = 'win' AS won
    FROM card_games g JOIN s ON s.match_no = g.match_no AND s.side = g.player
), names AS (
    SELECT code, any_value(name) AS name FROM card_catalog GROUP BY ALL
)
SELECT c.card AS key,
       n.name,
       count(*) FILTER (WHERE played) AS played_games,
       count(*) FILTER (WHERE played AND won) AS played_wins,
       count(*) FILTER (WHERE held) AS hand_games,
       count(*) FILTER (WHERE held AND won) AS hand_wins
FROM c
LEFT JOIN names n ON n.code = c.card
GROUP BY ALL
