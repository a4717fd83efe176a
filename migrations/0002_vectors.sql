-- Vector change tracking (src/core/vectorstore): a monotonically increasing change
-- sequence that triggers bump on every change that can alter a memory's vector or its
-- visibility, and one row per memory saying when it last changed. A vector index knows
-- the sequence value it is complete up to (its watermark, saved in its file); catching up
-- is "SELECT … FROM vector_dirty WHERE seq > watermark". Because triggers do the work,
-- every writer (MemoryService, the pipeline inside its own transactions, imports, replay
-- of the operation log) is covered without calling the vector code.
-- Triggers are deterministic (no clock, no random), so log replay reproduces them exactly.

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
  INSERT OR REPLACE INTO vector_dirty (rid, seq) VALUES (new.rid, (SELECT seq FROM vector_seq WHERE id = 1));
END;

-- Only changes that matter to the index: access-count bumps and the like do not fire.
CREATE TRIGGER memories_vec_au AFTER UPDATE ON memories
WHEN old.deleted_at IS NOT new.deleted_at
  OR old.embedding_hash IS NOT new.embedding_hash
  OR old.embedding_status IS NOT new.embedding_status
BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  INSERT OR REPLACE INTO vector_dirty (rid, seq) VALUES (new.rid, (SELECT seq FROM vector_seq WHERE id = 1));
END;

CREATE TRIGGER memories_vec_ad AFTER DELETE ON memories BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  INSERT OR REPLACE INTO vector_dirty (rid, seq) VALUES (old.rid, (SELECT seq FROM vector_seq WHERE id = 1));
END;

-- A vector appearing or disappearing (new space filled by a re-embed, garbage collection)
-- changes every memory with that text.
CREATE TRIGGER embeddings_vec_ai AFTER INSERT ON embeddings BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  INSERT OR REPLACE INTO vector_dirty (rid, seq)
    SELECT rid, (SELECT seq FROM vector_seq WHERE id = 1) FROM memories WHERE embedding_hash = new.text_hash;
END;

CREATE TRIGGER embeddings_vec_ad AFTER DELETE ON embeddings BEGIN
  UPDATE vector_seq SET seq = seq + 1 WHERE id = 1;
  INSERT OR REPLACE INTO vector_dirty (rid, seq)
    SELECT rid, (SELECT seq FROM vector_seq WHERE id = 1) FROM memories WHERE embedding_hash = old.text_hash;
END;

-- Memories that existed before this migration: all dirty at seq 1 (an index built from
-- scratch reads everything anyway).
UPDATE vector_seq SET seq = 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM memories);
INSERT INTO vector_dirty (rid, seq) SELECT rid, 1 FROM memories;
