WITH s AS (
    SELECT coalesce({period}, 'unknown') AS period, {key} AS key, opp_{key} AS opp, result
    FROM filtered_seats($since, $until, $event, $deck, $player, opp_deck_ := $opp_deck, seat_ := $seat,
                        colours_ := $colours, archetype_ := $archetype, opp_archetype_ := $opp_archetype,
                        game_ := $game)
), field AS (
    SELECT coalesce({period}, 'unknown') AS period, count(*) AS field
    FROM filtered_seats($since, $until, $event, NULL, NULL, seat_ := $seat, game_ := $game)
    GROUP BY ALL
)
SELECT s.period,
       s.key,
       count(*) AS seats,
       any_value(f.field) AS field,
       count(*) FILTER (WHERE s.result IS NOT NULL AND s.key IS DISTINCT FROM s.opp) AS games,
       count(*) FILTER (WHERE s.result = 'win' AND s.key IS DISTINCT FROM s.opp) AS wins
FROM s
JOIN field f ON f.period = s.period
GROUP BY s.period, s.key
