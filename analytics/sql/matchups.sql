SELECT deck,
       opp_deck AS opponent,
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result = 'draw') AS draws
FROM filtered_seats($since, $until, $event, $deck, $player)
WHERE result IS NOT NULL
  AND deck IS DISTINCT FROM opp_deck
GROUP BY ALL
