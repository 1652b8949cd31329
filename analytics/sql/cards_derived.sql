-- cards.sql over the derived card_seats (analytics.derived): the same columns and rows
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
), names AS (
    SELECT code, any_value(name) AS name FROM card_catalog GROUP BY ALL
)
SELECT c.card AS key,
       any_value(n.name) AS name,
       CAST(coalesce(sum(c.n) FILTER (WHERE in_deck), 0) AS BIGINT) AS deck_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE in_deck AND won), 0) AS BIGINT) AS deck_wins,
       CAST(coalesce(sum(c.n) FILTER (WHERE oh), 0) AS BIGINT) AS oh_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE oh AND won), 0) AS BIGINT) AS oh_wins,
       CAST(coalesce(sum(c.n) FILTER (WHERE gd), 0) AS BIGINT) AS gd_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE gd AND won), 0) AS BIGINT) AS gd_wins,
       CAST(coalesce(sum(c.n) FILTER (WHERE gih), 0) AS BIGINT) AS gih_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE gih AND won), 0) AS BIGINT) AS gih_wins,
       CAST(coalesce(sum(c.n) FILTER (WHERE gns), 0) AS BIGINT) AS gns_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE gns AND won), 0) AS BIGINT) AS gns_wins,
       CAST(coalesce(sum(c.n) FILTER (WHERE played), 0) AS BIGINT) AS played_games,
       CAST(coalesce(sum(c.n) FILTER (WHERE played AND won), 0) AS BIGINT) AS played_wins
FROM c
LEFT JOIN names n ON n.code = c.card
GROUP BY c.card
