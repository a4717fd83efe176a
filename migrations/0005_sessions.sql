-- Agent Memory schema: the memory of the work itself (docs/sessions.md) — agent sessions, their
-- conversation events, per-session state (last sequence, rolling summary, scratchpad), files a
-- session indexed, and the chunks its text was cut into, with a full-text index and vectors.
-- Every key and timestamp is bound from JavaScript (exact log replay): chunks.rid too, which
-- the store picks one above the highest ever used (never reused, like memories.rid).

CREATE TABLE sessions (
  session_id     TEXT PRIMARY KEY,
  agent_identity TEXT,                 -- claude-code, vscode-chat, an MCP client's name, cli, …
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);

-- The raw history: one JSON message per event, with a sequence that only ever grows.
CREATE TABLE conversation_events (
  session_id   TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
  sequence     INTEGER NOT NULL,
  payload_json TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (session_id, sequence)
) WITHOUT ROWID;

-- Transient state of a session: last_sequence (high-water mark), summary_state (rolling summary
-- text, epoch, upper sequence) and the scratchpad, as one JSON object.
CREATE TABLE session_state (
  session_id TEXT PRIMARY KEY REFERENCES sessions(session_id) ON DELETE CASCADE,
  state_json TEXT NOT NULL DEFAULT '{}',
  updated_at TEXT NOT NULL
);

-- Files a session indexed (an agent's transcript, read up to a point), so nothing is processed twice.
CREATE TABLE files (
  file_id       INTEGER PRIMARY KEY,   -- bound from JavaScript
  session_id    TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
  source_uri    TEXT NOT NULL,
  content_hash  TEXT NOT NULL,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL,
  UNIQUE (session_id, source_uri)
);

-- Text segments of the events (at most 640 characters, 96 of overlap). A chunk whose text the
-- session already holds extends that chunk's sequence_end instead of adding a second one.
CREATE TABLE chunks (
  rid            INTEGER PRIMARY KEY,  -- full-text docid and vector label; bound from JavaScript
  chunk_id       TEXT NOT NULL UNIQUE,
  session_id     TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
  chunk_text     TEXT NOT NULL,
  content_hash   TEXT NOT NULL,
  sequence_start INTEGER NOT NULL,
  sequence_end   INTEGER NOT NULL,
  metadata_json  TEXT NOT NULL DEFAULT '{}'  -- role, note_id, source, tags, timestamps, schema_version
);
CREATE INDEX idx_chunks_session_hash ON chunks(session_id, content_hash);
CREATE INDEX idx_chunks_session_end ON chunks(session_id, sequence_end);

-- Every tag of a chunk (metadata_json.tags), for tag filters in SQL; kept by the triggers below.
CREATE TABLE chunk_tags (
  tag TEXT NOT NULL,
  rid INTEGER NOT NULL REFERENCES chunks(rid) ON DELETE CASCADE,
  PRIMARY KEY (tag, rid)
) WITHOUT ROWID;
CREATE INDEX idx_chunk_tags_rid ON chunk_tags(rid);

CREATE TRIGGER chunk_tags_ai AFTER INSERT ON chunks BEGIN
  INSERT OR IGNORE INTO chunk_tags (tag, rid)
    SELECT value, new.rid FROM json_each(new.metadata_json, '$.tags') WHERE type = 'text';
END;
CREATE TRIGGER chunk_tags_au AFTER UPDATE OF metadata_json ON chunks BEGIN
  DELETE FROM chunk_tags WHERE rid = new.rid;
  INSERT OR IGNORE INTO chunk_tags (tag, rid)
    SELECT value, new.rid FROM json_each(new.metadata_json, '$.tags') WHERE type = 'text';
END;

-- Full-text index over the chunks: external content, the same trigger pattern as memories_fts
-- (FTS4 reads the old text from chunks on delete, so deletes run BEFORE the row changes).
CREATE VIRTUAL TABLE chunks_fts USING fts4(content="chunks", chunk_text, tokenize=porter);

CREATE TRIGGER chunks_fts_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(docid, chunk_text) VALUES (new.rid, new.chunk_text);
END;
CREATE TRIGGER chunks_fts_bu BEFORE UPDATE OF chunk_text ON chunks BEGIN
  DELETE FROM chunks_fts WHERE docid = old.rid;
END;
CREATE TRIGGER chunks_fts_au AFTER UPDATE OF chunk_text ON chunks BEGIN
  INSERT INTO chunks_fts(docid, chunk_text) VALUES (new.rid, new.chunk_text);
END;
CREATE TRIGGER chunks_fts_bd BEFORE DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE docid = old.rid;
END;

-- A chunk's vector in each embedding space that embedded it (int8 blobs, src/core/vectorstore/blob.ts).
CREATE TABLE chunks_vec (
  chunk_id        TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
  embedding_model TEXT NOT NULL,       -- the embedding space
  embedding_blob  BLOB NOT NULL,
  PRIMARY KEY (chunk_id, embedding_model)
) WITHOUT ROWID;
CREATE INDEX idx_chunks_vec_model ON chunks_vec(embedding_model);

-- Vector change tracking of the chunks, as migrations/0002_vectors.sql does for memories: the
-- chunk index of a space knows the sequence value it is complete up to.
CREATE TABLE chunk_vector_seq (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL
);
INSERT INTO chunk_vector_seq (id, seq) VALUES (1, 0);

-- One row per chunk rid, kept after the chunk is deleted (so the index drops it, and the rid
-- is never given out again).
CREATE TABLE chunk_vector_dirty (
  rid INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL
);
CREATE INDEX idx_chunk_vector_dirty_seq ON chunk_vector_dirty(seq);

CREATE TRIGGER chunks_vec_dirty_ai AFTER INSERT ON chunks BEGIN
  UPDATE chunk_vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE chunk_vector_dirty SET seq = (SELECT seq FROM chunk_vector_seq WHERE id = 1) WHERE rid = new.rid;
  INSERT INTO chunk_vector_dirty (rid, seq) SELECT new.rid, seq FROM chunk_vector_seq WHERE id = 1
    AND NOT EXISTS (SELECT 1 FROM chunk_vector_dirty WHERE rid = new.rid);
END;

CREATE TRIGGER chunks_vec_dirty_ad AFTER DELETE ON chunks BEGIN
  UPDATE chunk_vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE chunk_vector_dirty SET seq = (SELECT seq FROM chunk_vector_seq WHERE id = 1) WHERE rid = old.rid;
  INSERT INTO chunk_vector_dirty (rid, seq) SELECT old.rid, seq FROM chunk_vector_seq WHERE id = 1
    AND NOT EXISTS (SELECT 1 FROM chunk_vector_dirty WHERE rid = old.rid);
END;

CREATE TRIGGER chunks_vec_vec_ai AFTER INSERT ON chunks_vec BEGIN
  UPDATE chunk_vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE chunk_vector_dirty SET seq = (SELECT seq FROM chunk_vector_seq WHERE id = 1)
    WHERE rid = (SELECT rid FROM chunks WHERE chunk_id = new.chunk_id);
  INSERT INTO chunk_vector_dirty (rid, seq)
    SELECT c.rid, (SELECT seq FROM chunk_vector_seq WHERE id = 1) FROM chunks c
     WHERE c.chunk_id = new.chunk_id AND NOT EXISTS (SELECT 1 FROM chunk_vector_dirty d WHERE d.rid = c.rid);
END;

CREATE TRIGGER chunks_vec_vec_ad AFTER DELETE ON chunks_vec BEGIN
  UPDATE chunk_vector_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE chunk_vector_dirty SET seq = (SELECT seq FROM chunk_vector_seq WHERE id = 1)
    WHERE rid = (SELECT rid FROM chunks WHERE chunk_id = old.chunk_id);
END;

-- Sessions a person forgot: their ids only (nothing of their text), so a late event of one is
-- refused with a clear error instead of starting the forgotten session again.
CREATE TABLE forgotten_sessions (
  session_id   TEXT PRIMARY KEY,
  forgotten_at TEXT NOT NULL
);
