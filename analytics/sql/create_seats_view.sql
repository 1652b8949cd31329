CREATE OR REPLACE VIEW seats AS
SELECT match_id, played_at, played_on, month, event, format,
       'P1' AS side, p1_name AS name, p1_deck AS deck, p1_colours AS colours,
       p2_name AS opp_name, p2_deck AS opp_deck, p2_colours AS opp_colours,
       CASE WHEN first = 'P1' THEN 'first' ELSE 'second' END AS seat,
       CASE WHEN first = 'P1' THEN 'second' ELSE 'first' END AS opp_seat,
       CASE WHEN winner = 'P1' THEN 'win' WHEN winner = 'P2' THEN 'loss'
            WHEN reason = 'draw' THEN 'draw' END AS result,
       turns
FROM matches
UNION ALL
SELECT match_id, played_at, played_on, month, event, format,
       'P2', p2_name, p2_deck, p2_colours,
       p1_name, p1_deck, p1_colours,
       CASE WHEN first = 'P2' THEN 'first' ELSE 'second' END,
       CASE WHEN first = 'P2' THEN 'second' ELSE 'first' END,
       CASE WHEN winner = 'P2' THEN 'win' WHEN winner = 'P1' THEN 'loss'
            WHEN reason = 'draw' THEN 'draw' END,
       turns
FROM matches
