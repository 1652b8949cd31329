-- a mirror (win_rate leaves it out) is the same known archetype on both sides: a side without a deck
-- list (NULL) is never one; a deck without a name is listed as {no_name}
WITH s AS (
    SELECT archetype, colours, deck, coalesce(archetype = opp_archetype, FALSE) AS mirror, result
    FROM seats
    WHERE {where}
), names AS (
    SELECT archetype, deck, count(*) AS n FROM s GROUP BY ALL
), field AS (
    SELECT count(*) AS field
    FROM seats
    WHERE {field_where}
)
SELECT s.archetype AS key,
       any_value(s.colours) AS colours,
       count(*) AS seats,
       any_value(f.field) AS field,
       count(*) FILTER (WHERE s.result IS NOT NULL AND NOT s.mirror) AS games,
       count(*) FILTER (WHERE s.result = 'win' AND NOT s.mirror) AS wins,
       any_value(d.decks) AS decks,
       any_value(d.names) AS deck_names
FROM s
CROSS JOIN field f
LEFT JOIN (
    SELECT archetype,
           count(*) AS names,
           string_agg(coalesce(deck, {no_name}) || ' (' || n || ')', ', ' ORDER BY n DESC, deck) AS decks
    FROM names GROUP BY ALL
) d ON d.archetype IS NOT DISTINCT FROM s.archetype
GROUP BY s.archetype
