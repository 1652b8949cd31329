-- cards.sql over the derived card_seats (zx_analytics.derived): the same columns and rows
WITH f AS (
    -- one row per card and combination of facts, as in cards.sql, counted on the integer
    -- card_id * 32 + facts (finished games only: card_seats holds no other)
    SELECT k, count(*) AS n
    FROM {derived}.card_seats
    WHERE {where}
      AND {card}
    GROUP BY k
), c AS (
    SELECT i.card,
           f.n,
           f.k & 16 = 16 AS won,
           f.k & 1 = 1 AS in_deck,
           f.k & 2 = 2 AS oh,
           f.k & 6 = 4 AS gd,
           f.k & 6 > 0 AS gih,
           f.k & 7 = 1 AS gns,
           f.k & 8 = 8 AS played
    FROM f
    JOIN {derived}.card_ids i ON i.card_id = f.k // 32
{end}
