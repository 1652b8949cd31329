CREATE TABLE IF NOT EXISTS projection_position (
    projection VARCHAR PRIMARY KEY,
    position BIGINT NOT NULL,
    events BIGINT NOT NULL,
    schema_version INTEGER NOT NULL,
    store VARCHAR NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
)
