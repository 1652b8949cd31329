-- a period or key that is unknown (NULL) is labelled ({no_period}, {none}), and its rows are kept
-- apart from a value written the same way; a mirror is the same known key on both sides (win_rate)
WITH s AS (
    SELECT {period} AS period, {key} AS key, coalesce({key} = opp_{key}, FALSE) AS mirror, result
    FROM seats
    WHERE {where}
), field AS (
    SELECT {period} AS period, count(*) AS field
    FROM seats
    WHERE {field_where}
    GROUP BY ALL
)
SELECT coalesce(s.period, {no_period}) AS period,
       coalesce(s.key, {none}) AS key,
       count(*) AS seats,
       any_value(f.field) AS field,
       count(*) FILTER (WHERE s.result IS NOT NULL AND NOT s.mirror) AS games,
       count(*) FILTER (WHERE s.result = 'win' AND NOT s.mirror) AS wins
FROM s
JOIN field f ON f.period IS NOT DISTINCT FROM s.period
GROUP BY s.period, s.key
