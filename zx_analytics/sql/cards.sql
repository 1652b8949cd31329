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
    FROM {games} g
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
{end}
