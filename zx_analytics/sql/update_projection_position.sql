UPDATE projection_position SET position = ?, events = ?, updated_at = ? WHERE projection = ?
