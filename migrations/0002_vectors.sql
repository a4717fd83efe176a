-- Vector change tracking (src/core/vectorstore): a monotonically increasing change
-- sequence that triggers bump on every change that can alter a memory's vector or its
-- visibility, and one row per memory saying when it last changed. A vector index knows
-- the sequence value it is complete up to (its watermark, saved in its file); catching up
-- is "SELECT … FROM vector_dirty WHERE seq > watermark". Because triggers do the work,
-- every writer (MemoryService, the pipeline inside its own transactions, imports, replay
-- of the operation log) is covered without calling the vector code.
-- Triggers are deterministic (no clock, no random), so log replay reproduces them exactly.
-- They UPDATE-then-INSERT instead of INSERT OR REPLACE because an outer statement's conflict
-- clause (e.g. INSERT OR IGNORE INTO embeddings) overrides the one of statements in its
-- triggers: an OR REPLACE here would silently become OR IGNORE and lose the change mark.

CREATE TABLE vector_seq (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL
);
INSERT INTO vector_seq (id, seq) VALUES (1, 0);

-- One row per memory (not per change), so the table never outgrows memories.
CREATE TABLE vector_dirty (
  rid INTEGER PRIMARY KEY,   -- memories.rid (kept after a hard delete, so the index can drop it)
  seq INTEGER NOT NULL
);
CREATE INDEX idx_vector_dirty_seq ON vector_dirty(seq);

-- Memories sharing a text share one embeddings row; find them by hash.
CREATE INDEX idx_memories_embedding_hash ON memories(embedding_hash) WHERE embedding_hash IS NOT NULL;

CREATE TRIGGER memories_vec_ai AFTER INSERT ON memories BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE vector_dirty SET seq = (SELECT seq FROM vector_seq WHERE id = 1) WHERE rid = new.rid;
  INSERT INTO vector_dirty (rid, seq) SELECT new.rid, seq FROM vector_seq WHERE id = 1
    AND NOT EXISTS (SELECT 1 FROM vector_dirty WHERE rid = new.rid);
END;

-- Only changes that matter to the index: access-count bumps and the like do not fire.
CREATE TRIGGER memories_vec_au AFTER UPDATE ON memories
WHEN old.deleted_at IS NOT new.deleted_at
  OR old.embedding_hash IS NOT new.embedding_hash
  OR old.embedding_status IS NOT new.embedding_status
BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE vector_dirty SET seq = (SELECT seq FROM vector_seq WHERE id = 1) WHERE rid = new.rid;
  INSERT INTO vector_dirty (rid, seq) SELECT new.rid, seq FROM vector_seq WHERE id = 1
    AND NOT EXISTS (SELECT 1 FROM vector_dirty WHERE rid = new.rid);
END;

CREATE TRIGGER memories_vec_ad AFTER DELETE ON memories BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE vector_dirty SET seq = (SELECT seq FROM vector_seq WHERE id = 1) WHERE rid = old.rid;
  INSERT INTO vector_dirty (rid, seq) SELECT old.rid, seq FROM vector_seq WHERE id = 1
    AND NOT EXISTS (SELECT 1 FROM vector_dirty WHERE rid = old.rid);
END;

-- A hard delete (purge) also drops the vectors of its text unless another memory (live or
-- tombstoned) still has that text.
CREATE TRIGGER memories_vec_gc AFTER DELETE ON memories
WHEN old.embedding_hash IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM memories WHERE embedding_hash = old.embedding_hash)
BEGIN
  DELETE FROM embeddings WHERE text_hash = old.embedding_hash;
END;

-- A vector appearing or disappearing (new space filled by a re-embed, garbage collection)
-- changes every memory with that text.
CREATE TRIGGER embeddings_vec_ai AFTER INSERT ON embeddings BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE vector_dirty SET seq = (SELECT seq FROM vector_seq WHERE id = 1)
    WHERE rid IN (SELECT rid FROM memories WHERE embedding_hash = new.text_hash);
  INSERT INTO vector_dirty (rid, seq)
    SELECT m.rid, (SELECT seq FROM vector_seq WHERE id = 1) FROM memories m
     WHERE m.embedding_hash = new.text_hash AND NOT EXISTS (SELECT 1 FROM vector_dirty d WHERE d.rid = m.rid);
END;

CREATE TRIGGER embeddings_vec_ad AFTER DELETE ON embeddings BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE vector_dirty SET seq = (SELECT seq FROM vector_seq WHERE id = 1)
    WHERE rid IN (SELECT rid FROM memories WHERE embedding_hash = old.text_hash);
  INSERT INTO vector_dirty (rid, seq)
    SELECT m.rid, (SELECT seq FROM vector_seq WHERE id = 1) FROM memories m
     WHERE m.embedding_hash = old.text_hash AND NOT EXISTS (SELECT 1 FROM vector_dirty d WHERE d.rid = m.rid);
END;

-- Memories that existed before this migration: all dirty at seq 1 (an index built from
-- scratch reads everything anyway).
UPDATE vector_seq SET seq = 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM memories);
INSERT INTO vector_dirty (rid, seq) SELECT rid, 1 FROM memories;
