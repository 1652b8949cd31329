INSERT INTO projection_position (projection, position, events, schema_version, store, updated_at)
VALUES (?, 0, 0, ?, ?, ?)
