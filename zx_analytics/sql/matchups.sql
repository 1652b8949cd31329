-- mirrors left out as in winrates.sql: the same known value on both sides (an unknown one is never a mirror)
SELECT coalesce({key}, {none}) AS key,
       coalesce(opp_{key}, {none}) AS opponent,
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result = 'draw') AS draws
FROM seats
WHERE {where}
  AND result IS NOT NULL
  AND NOT coalesce({key} = opp_{key}, FALSE)
GROUP BY {key}, opp_{key}
