CREATE TABLE IF NOT EXISTS plays (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    zone VARCHAR,
    kind VARCHAR,
    square VARCHAR,
    on_square VARCHAR,
    cost INTEGER NOT NULL,
    extra BOOLEAN NOT NULL,
    own_turn BOOLEAN NOT NULL,
    attack_seq INTEGER
)
