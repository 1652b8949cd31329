CREATE TABLE {derived}.card_ids AS
SELECT card, CAST(row_number() OVER (ORDER BY card) - 1 AS INTEGER) AS card_id
FROM (SELECT DISTINCT card FROM card_games)
