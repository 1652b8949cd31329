-- life_by_turn.sql with the damage taken from the derived life_seats (analytics.derived): the same
-- columns and rows
WITH s AS (
    SELECT seat, turns FROM seats WHERE {where}
), reached AS (
    SELECT seat, CAST(unnest(range(1, turns + 1)) AS INTEGER) AS turn, count(*) AS n FROM s GROUP BY seat, turns
), games AS (
    SELECT turn, seat, CAST(sum(n) AS BIGINT) AS games FROM reached GROUP BY ALL
), taken AS (
    SELECT l.turn, CAST(l.seat AS VARCHAR) AS seat, count(*) AS damage, count(*) FILTER (WHERE l.ig_played) AS ignitions
    FROM {derived}.life_seats l
    WHERE {where}
    GROUP BY ALL
)
SELECT g.turn,
       g.seat AS key,
       g.games,
       coalesce(t.damage, 0) AS damage,
       coalesce(t.ignitions, 0) AS ignitions
FROM games g
LEFT JOIN taken t ON t.turn = g.turn AND t.seat = g.seat
