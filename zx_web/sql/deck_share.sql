-- every seat of the field counts (the share's denominator: the seats under the date, event, seat and game
-- filters only, as zx stats meta and archetypes count the field; a --deck or --player filter kept the share
-- of itself, 100%); the sides without a deck name are one row, labelled as in every statistic by deck
-- (zx_analytics.stats.NO_NAME), never dropped
SELECT coalesce(deck, '(no name)') AS deck, seats, matches, f.all_seats
FROM (SELECT deck,
             count(*) AS seats,
             count(DISTINCT match_no) AS matches
      FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                          colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype,
                          game_ := $game)
      GROUP BY deck)
CROSS JOIN (SELECT CAST(count(*) AS BIGINT) AS all_seats
            FROM filtered_seats($since, $until, $event, NULL, NULL, seat_ := $seat, game_ := $game)) f
ORDER BY seats DESC, deck
