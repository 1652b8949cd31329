CREATE TABLE IF NOT EXISTS ignitions (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    charge_card VARCHAR NOT NULL,
    revealed VARCHAR NOT NULL,
    kind VARCHAR,
    played BOOLEAN NOT NULL,
    square VARCHAR
)
