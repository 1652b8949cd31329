CREATE TABLE IF NOT EXISTS x610z_casts (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR,
    card VARCHAR,
    kind VARCHAR,
    own_turn BOOLEAN,
    outcome VARCHAR
)
