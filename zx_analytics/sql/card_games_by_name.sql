-- card_games with the codes of one card name ($cards: a reprint's codes, R01-003 and R01-019) as one
-- card ($label): a row per match and side holding any of them, its copies, draws and plays summed, so
-- a game counts once for the name (17lands counts by name) and not once per code (cards.sql's {games})
(SELECT match_no, player, $label AS card, sum(copies) AS copies, bool_or(opening) AS opening, sum(drawn) AS drawn,
        sum(played) AS played
 FROM card_games
 WHERE list_contains($cards, card)
 GROUP BY match_no, player)
