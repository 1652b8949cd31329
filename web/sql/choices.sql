SELECT 'event' AS kind, event AS value FROM matches WHERE event IS NOT NULL
UNION
SELECT 'deck', p1_deck FROM matches WHERE p1_deck IS NOT NULL
UNION
SELECT 'deck', p2_deck FROM matches WHERE p2_deck IS NOT NULL
ORDER BY kind, value
