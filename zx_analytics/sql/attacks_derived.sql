-- attacks.sql over the derived attack_seats (zx_analytics.derived): the same columns and rows. The
-- attacks are first counted per key, outcome and first-of-key flag (a few hundred rows however many
-- games), so the outcome counts are sums over a small table
WITH x AS (
    SELECT {key} AS key, a.outcome, {first} AS first, count(*) AS n, sum(a.event_count) AS events
    FROM {derived}.attack_seats a
    WHERE {where}
    GROUP BY ALL
)
SELECT CAST(key AS VARCHAR) AS key,
       CAST(sum(n) AS BIGINT) AS attacks,
       CAST(coalesce(sum(n) FILTER (WHERE first), 0) AS BIGINT) AS games,
       CAST(coalesce(sum(n) FILTER (WHERE outcome = 'destroyed'), 0) AS BIGINT) AS destroyed,
       CAST(coalesce(sum(n) FILTER (WHERE outcome = 'survived'), 0) AS BIGINT) AS survived,
       CAST(coalesce(sum(n) FILTER (WHERE outcome = 'player_damaged'), 0) AS BIGINT) AS player_damaged,
       CAST(coalesce(sum(n) FILTER (WHERE outcome = 'no_damage_overboost'), 0) AS BIGINT) AS no_damage_overboost,
       CAST(coalesce(sum(n) FILTER (WHERE outcome = 'fizzled'), 0) AS BIGINT) AS fizzled,
       CAST(coalesce(sum(n) FILTER (WHERE outcome IS NULL), 0) AS BIGINT) AS unresolved,
       CAST(coalesce(sum(n) FILTER (WHERE outcome IN ('destroyed', 'player_damaged')), 0) AS BIGINT) AS successes,
       CAST(sum(events) AS BIGINT) AS events_played
FROM x
GROUP BY key
