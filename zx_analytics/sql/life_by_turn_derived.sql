-- life_by_turn.sql with the damage taken from the derived life_seats (zx_analytics.derived): the same
-- columns and rows
WITH s AS (
    SELECT seat, turns FROM seats WHERE {where}
), taken AS (
    SELECT l.turn, CAST(l.seat AS VARCHAR) AS seat, count(*) AS damage, count(*) FILTER (WHERE l.ig_played) AS ignitions
    FROM {derived}.life_seats l
    WHERE {where}
    GROUP BY ALL
{end}
