SELECT 'event' AS kind, event AS value FROM matches WHERE event IS NOT NULL AND game = $game
UNION
SELECT 'deck', p1_deck FROM matches WHERE p1_deck IS NOT NULL AND game = $game
UNION
SELECT 'deck', p2_deck FROM matches WHERE p2_deck IS NOT NULL AND game = $game
ORDER BY kind, value
