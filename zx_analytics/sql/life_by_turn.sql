WITH s AS (
    SELECT match_no, side, seat, turns FROM seats WHERE {where}
), taken AS (
    SELECT l.turn, s.seat, count(*) AS damage, count(*) FILTER (WHERE l.ig_played) AS ignitions
    FROM life l JOIN s ON s.match_no = l.match_no AND s.side = l.player
    GROUP BY ALL
{end}
