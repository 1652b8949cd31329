-- every seat of the field counts (the share's denominator); the sides without a deck name are one
-- row, labelled as in every statistic by deck (analytics.stats.NO_NAME), never dropped
SELECT coalesce(deck, '(no name)') AS deck, seats, matches, all_seats
FROM (SELECT deck,
             count(*) AS seats,
             count(DISTINCT match_no) AS matches,
             CAST(sum(count(*)) OVER () AS BIGINT) AS all_seats
      FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                          colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype,
                          game_ := $game)
      GROUP BY deck)
ORDER BY seats DESC, deck
