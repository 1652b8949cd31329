SELECT game, count(*) AS matches FROM matches GROUP BY ALL ORDER BY matches DESC, game
