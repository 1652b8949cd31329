CREATE TABLE IF NOT EXISTS projection_inflight (
    match_uuid VARCHAR PRIMARY KEY,
    state VARCHAR NOT NULL
)
