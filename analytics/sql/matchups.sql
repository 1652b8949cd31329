SELECT {key} AS key,
       opp_{key} AS opponent,
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result = 'draw') AS draws
FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                    colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype, game_ := $game)
WHERE result IS NOT NULL
  AND {key} IS DISTINCT FROM opp_{key}
GROUP BY ALL
