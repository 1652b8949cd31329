SELECT deck,
       count(*) AS seats,
       count(DISTINCT match_no) AS matches,
       CAST(sum(count(*)) OVER () AS BIGINT) AS all_seats
FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                    colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype, game_ := $game)
WHERE deck IS NOT NULL
GROUP BY ALL
ORDER BY seats DESC, deck
