CREATE TABLE IF NOT EXISTS card_catalog (
    catalog VARCHAR NOT NULL,
    catalog_sha256 VARCHAR NOT NULL,
    code VARCHAR NOT NULL,
    name VARCHAR,
    type VARCHAR,
    colours VARCHAR,
    cost VARCHAR,
    power INTEGER,
    icons VARCHAR,
    PRIMARY KEY (catalog, catalog_sha256, code)
)
