CREATE TABLE IF NOT EXISTS life (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    kind VARCHAR,
    ig_played BOOLEAN NOT NULL,
    life_recovery BOOLEAN NOT NULL,
    void_bringer BOOLEAN NOT NULL,
    life_after INTEGER NOT NULL,
    attack_seq INTEGER
)
