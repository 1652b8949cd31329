WITH s AS (
    SELECT match_no, side, seat, turns FROM seats WHERE {where}
), reached AS (
    SELECT seat, CAST(unnest(range(1, turns + 1)) AS INTEGER) AS turn, count(*) AS n FROM s GROUP BY seat, turns
), games AS (
    SELECT turn, seat, CAST(sum(n) AS BIGINT) AS games FROM reached GROUP BY ALL
), taken AS (
    SELECT l.turn, s.seat, count(*) AS damage, count(*) FILTER (WHERE l.ig_played) AS ignitions
    FROM life l JOIN s ON s.match_no = l.match_no AND s.side = l.player
    GROUP BY ALL
)
SELECT g.turn,
       g.seat AS key,
       g.games,
       coalesce(t.damage, 0) AS damage,
       coalesce(t.ignitions, 0) AS ignitions
FROM games g
LEFT JOIN taken t ON t.turn = g.turn AND t.seat = g.seat
