-- each card code's name in card_catalog: the names its catalogs give it, each once, in alphabetical
-- order, joined by ' / ' (two catalogs that name one code differently, an edition and a later one, or a
-- file given with --catalog, both shown: any_value showed one of them, not always the same one)
SELECT code, string_agg(DISTINCT name, ' / ' ORDER BY name) AS name
FROM card_catalog
GROUP BY code
