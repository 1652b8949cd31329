-- card_games of finished games with their side's filter columns (seats), one integer per row for
-- the card and its facts: card_id * 32 + facts (bits: 1 in the deck list, 2 in the opening hand,
-- 4 drawn later, 8 played, 16 won), so zx stats cards counts over one scan and one small integer
-- group key, without the join to seats
CREATE TABLE {derived}.card_seats AS
SELECT {seat_columns},
       CAST(i.card_id * 32 + CAST((g.copies > 0) AS INTEGER) + 2 * CAST(g.opening AS INTEGER)
            + 4 * CAST((g.drawn > 0) AS INTEGER) + 8 * CAST((g.played > 0) AS INTEGER)
            + 16 * CAST((s.result = 'win') AS INTEGER) AS INTEGER) AS k
FROM card_games g
JOIN seats s ON s.match_no = g.match_no AND s.side = g.player
JOIN {derived}.card_ids i ON i.card = g.card
WHERE s.result IS NOT NULL
