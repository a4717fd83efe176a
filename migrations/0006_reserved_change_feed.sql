-- Placeholder for migration 0006 (change feed), which another branch adds. Migrations are
-- numbered without gaps, so this branch carries an empty one until that branch lands: the
-- real 0006 replaces this file (drop it when merging).
CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
