-- a mirror (left out, by deck, archetype or colours: {mirror}) is the same known value on both sides: a
-- side whose value is unknown (NULL: a deck without a name, a deck list without a catalog) is never one,
-- and its row is labelled {none} (a group of its own); two players of one name are no mirror ({mirror} TRUE)
SELECT coalesce({key}, {none}) AS key,
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result = 'draw') AS draws
FROM seats
WHERE {where}
  AND result IS NOT NULL
  AND {mirror}
GROUP BY {key}
