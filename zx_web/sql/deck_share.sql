-- the share's denominator (all_seats): the seats under the date, event, seat and game filters, as zx stats meta and
-- archetypes count the field, and under the player filter too: with a player, the share is of that player's seats
-- (a coach filtering on one opponent reads that player's deck share; it was the whole field's, and the player's
-- decks came out at a few percent each); a --deck filter picks the rows only (it kept the share of itself, 100%);
-- the sides without a deck name are one row, labelled as in every statistic by deck (zx_analytics.stats.NO_NAME),
-- never dropped
SELECT coalesce(deck, '(no name)') AS deck, seats, matches, f.all_seats
FROM (SELECT deck,
             count(*) AS seats,
             count(DISTINCT match_no) AS matches
      FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                          colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype,
                          game_ := $game)
      WHERE $opponent IS NULL OR opp_name = $opponent
      GROUP BY deck)
CROSS JOIN (SELECT CAST(count(*) AS BIGINT) AS all_seats
            FROM filtered_seats($since, $until, $event, NULL, $player, seat_ := $seat, game_ := $game)
            WHERE $opponent IS NULL OR opp_name = $opponent) f
ORDER BY seats DESC, deck
