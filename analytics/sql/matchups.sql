SELECT {key} AS key,
       opp_{key} AS opponent,
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result = 'draw') AS draws
FROM seats
WHERE {where}
  AND result IS NOT NULL
  AND {key} IS DISTINCT FROM opp_{key}
GROUP BY ALL
