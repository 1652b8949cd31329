SELECT count(DISTINCT match_no) AS matches,
       count(*) FILTER (WHERE result IS NOT NULL) AS finished_seats,
       count(DISTINCT event) AS events,
       count(DISTINCT deck) AS decks,
       count(DISTINCT name) AS players,
       min(played_on) AS first_day,
       max(played_on) AS last_day
FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                    colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype, game_ := $game)
WHERE $opponent IS NULL OR opp_name = $opponent  -- (the macro of the file takes no opponent: its schema)
