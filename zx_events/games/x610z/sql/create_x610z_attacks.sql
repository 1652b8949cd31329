CREATE TABLE IF NOT EXISTS x610z_attacks (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    attacker_card VARCHAR,
    attacker_dot VARCHAR,
    target_card VARCHAR,
    target_dot VARCHAR,
    target_life BOOLEAN,
    distance INTEGER,
    outcome VARCHAR,
    damage INTEGER
)
