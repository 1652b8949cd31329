WITH s AS (
    SELECT match_no, side, result = 'win' AS won
    FROM seats
    WHERE {where}
      AND result IS NOT NULL
), f AS (
    -- one row per card and combination of facts (bits: 1 in the deck list, 2 in the opening hand,
    -- 4 drawn later, 8 played, 16 won): a few thousand rows however many games, so the metrics
    -- below are sums over a small table instead of a dozen filtered counts over every card game
    SELECT g.card,
           CAST((g.copies > 0) AS UTINYINT) + 2 * CAST(g.opening AS UTINYINT) + 4 * CAST((g.drawn > 0) AS UTINYINT)
           + 8 * CAST((g.played > 0) AS UTINYINT) + 16 * CAST(s.won AS UTINYINT) AS facts,
           count(*) AS n
    FROM card_games g
    JOIN s ON s.match_no = g.match_no AND s.side = g.player
    WHERE {card}
    GROUP BY ALL
), c AS (
    SELECT card,
           n,
           facts & 16 = 16 AS won,
           facts & 1 = 1 AS in_deck,
           facts & 2 = 2 AS oh,
           facts & 6 = 4 AS gd,
           facts & 6 > 0 AS gih,
           facts & 7 = 1 AS gns,
           facts & 8 = 8 AS played
    FROM f
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
