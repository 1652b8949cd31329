-- the end of life_by_turn.sql and life_by_turn_derived.sql (their {end}): per turn and seat, the
-- games that reached the turn (from the CTE s: seat, turns) beside the damage taken (the CTE taken)
), reached AS (
    SELECT seat, CAST(unnest(range(1, turns + 1)) AS INTEGER) AS turn, count(*) AS n FROM s GROUP BY seat, turns
), games AS (
    SELECT turn, seat, CAST(sum(n) AS BIGINT) AS games FROM reached GROUP BY ALL
)
SELECT g.turn,
       g.seat AS key,
       g.games,
       coalesce(t.damage, 0) AS damage,
       coalesce(t.ignitions, 0) AS ignitions
FROM games g
LEFT JOIN taken t ON t.turn = g.turn AND t.seat = g.seat
