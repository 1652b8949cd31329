CREATE TABLE IF NOT EXISTS turns (
    match_id VARCHAR NOT NULL,
    match_no BIGINT NOT NULL,
    turn INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    drawn INTEGER NOT NULL,
    resource BOOLEAN NOT NULL,
    ignitions INTEGER NOT NULL,
    plays INTEGER NOT NULL,
    attacks INTEGER NOT NULL,
    damage_dealt INTEGER NOT NULL,
    p1_life INTEGER NOT NULL,
    p2_life INTEGER NOT NULL,
    ended BOOLEAN NOT NULL
)
