CREATE TABLE IF NOT EXISTS card_games (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    player VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    copies INTEGER NOT NULL,
    opening BOOLEAN NOT NULL,
    drawn INTEGER NOT NULL,
    played INTEGER NOT NULL
)
