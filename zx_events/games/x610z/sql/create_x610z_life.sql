CREATE TABLE IF NOT EXISTS x610z_life (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    source VARCHAR,
    cause VARCHAR,
    amount INTEGER,
    damage_after INTEGER
)
