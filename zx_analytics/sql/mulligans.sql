SELECT seat,
       hand_size,
       count(*) AS games,
       count(*) FILTER (WHERE NOT mulligan) AS kept,
       count(*) FILTER (WHERE result IS NOT NULL AND NOT mulligan) AS kept_games,
       count(*) FILTER (WHERE result = 'win' AND NOT mulligan) AS kept_wins,
       count(*) FILTER (WHERE result IS NOT NULL AND mulligan) AS mulligan_games,
       count(*) FILTER (WHERE result = 'win' AND mulligan) AS mulligan_wins
FROM seats
WHERE {where}
  AND mulligan IS NOT NULL
GROUP BY ALL
