-- the end of cards.sql and cards_derived.sql (their {end}): the 17lands counts of each card from
-- the CTE c (one row per card and combination of facts: n games, and the facts as flags); the
-- card's name is joined after (card_names.sql)
)
SELECT c.card AS key,
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
GROUP BY c.card
