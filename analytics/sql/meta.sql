WITH s AS (
    SELECT coalesce({period}, 'unknown') AS period, {key} AS key, opp_{key} AS opp, result
    FROM seats
    WHERE {where}
), field AS (
    SELECT coalesce({period}, 'unknown') AS period, count(*) AS field
    FROM seats
    WHERE {field_where}
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
