CREATE TABLE IF NOT EXISTS x610z_moves (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    card VARCHAR,
    life BOOLEAN,
    from_dot VARCHAR,
    to_dot VARCHAR,
    steps INTEGER,
    warp BOOLEAN,
    outcome VARCHAR
)
