-- Agent Memory schema v1: memories (seeds 000, 002, 003, 004), full-text index,
-- embeddings, history/audit, jobs, relationships, consolidation.
-- All timestamps are ISO-8601 UTC strings bound from JavaScript: nothing here may
-- call CURRENT_TIMESTAMP or random(), so replaying the operation log is exact.

CREATE TABLE store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE memories (
  rid                INTEGER PRIMARY KEY,          -- stable integer key: FTS docid, vector label
  id                 TEXT NOT NULL UNIQUE,         -- public id (UUID)
  project_id         TEXT NOT NULL,                -- normalized project id (seed 003)
  scope              TEXT NOT NULL DEFAULT 'project' CHECK (scope IN ('project', 'global')),
  type               TEXT NOT NULL DEFAULT 'general',
  title              TEXT NOT NULL DEFAULT '',     -- seed 004 "topic"
  content            TEXT NOT NULL,                -- storage content (seed 000), seed 004 "context"
  summary            TEXT,
  normalized_content TEXT NOT NULL,
  content_hash       TEXT NOT NULL,                -- SHA-256 of normalized content (seed 000)
  doc_hash           TEXT NOT NULL,                -- seed 004 canonical payload hash
  tags               TEXT NOT NULL DEFAULT '[]',   -- JSON array of normalized tags
  importance         REAL NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
  source             TEXT,                         -- caller-provided identifier
  agent_source       TEXT,                         -- claude-code, copilot, user, pipeline-v2, …
  event_type         TEXT,
  who                TEXT,                         -- actor that wrote it (seed 000 stamps)
  why                TEXT,
  extraction_model   TEXT,
  tier               TEXT NOT NULL DEFAULT 'hot',
  retention_status   TEXT NOT NULL DEFAULT 'active',
  access_count       INTEGER NOT NULL DEFAULT 0,
  last_accessed_at   TEXT,
  ttl_seconds        INTEGER,                      -- NULL = permanent
  expires_at         TEXT,
  version            INTEGER NOT NULL DEFAULT 1,
  merged_from        TEXT NOT NULL DEFAULT '[]',   -- JSON array of absorbed memory ids
  replaced_by        TEXT,
  deleted_at         TEXT,                         -- soft-delete tombstone
  deleted_by         TEXT,
  delete_reason      TEXT,
  embedding_status   TEXT NOT NULL DEFAULT 'pending'
                     CHECK (embedding_status IN ('pending', 'ready', 'failed', 'none')),
  embedding_version  TEXT,                         -- embedding space of the stored vector
  embedding_hash     TEXT,                         -- key into embeddings for this memory's text
  decisions_json     TEXT NOT NULL DEFAULT '[]',
  rationale_json     TEXT NOT NULL DEFAULT '[]',
  metadata_json      TEXT NOT NULL DEFAULT '{}',
  pipeline_status    TEXT NOT NULL DEFAULT 'pending', -- seed 004 two-phase status
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL
);

CREATE INDEX idx_memories_project_created ON memories(project_id, created_at DESC);
CREATE INDEX idx_memories_type ON memories(type);
CREATE INDEX idx_memories_scope ON memories(scope);
CREATE INDEX idx_memories_importance ON memories(importance);
CREATE INDEX idx_memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX idx_memories_agent ON memories(agent_source);
CREATE INDEX idx_memories_replaced_by ON memories(replaced_by) WHERE replaced_by IS NOT NULL;
CREATE INDEX idx_memories_deleted ON memories(deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX idx_memories_doc_hash ON memories(doc_hash);
CREATE INDEX idx_memories_embedding_status ON memories(embedding_status) WHERE embedding_status <> 'ready';
-- Exact-content dedup among live memories of a project (seed 000 content_hash gate).
CREATE UNIQUE INDEX uq_memories_live_hash ON memories(project_id, content_hash) WHERE deleted_at IS NULL;

-- Normalized tags for filtering at the database level (seed 001 tag filtering).
CREATE TABLE memory_tags (
  tag TEXT NOT NULL,
  rid INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,
  PRIMARY KEY (tag, rid)
) WITHOUT ROWID;
CREATE INDEX idx_memory_tags_rid ON memory_tags(rid);

-- Full-text index over title, content and tags. External content (no second copy of
-- the text); every row is indexed, soft-deleted ones too, so FTS4's integrity-check
-- holds; queries join memories and filter tombstones.
CREATE VIRTUAL TABLE memories_fts USING fts4(content="memories", title, content, tags, tokenize=porter);

CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(docid, title, content, tags) VALUES (new.rid, new.title, new.content, new.tags);
END;
-- FTS4 external content: a BEFORE trigger deletes by docid while the old text is still
-- in memories (FTS4 reads it from there), an AFTER trigger indexes the new text.
CREATE TRIGGER memories_bu BEFORE UPDATE OF title, content, tags ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rid;
END;
CREATE TRIGGER memories_au AFTER UPDATE OF title, content, tags ON memories BEGIN
  INSERT INTO memories_fts(docid, title, content, tags) VALUES (new.rid, new.title, new.content, new.tags);
END;
CREATE TRIGGER memories_bd BEFORE DELETE ON memories BEGIN
  DELETE FROM memories_fts WHERE docid = old.rid;
END;

-- Vectors by embedding space and text hash (seed 000: upserts keyed by content hash).
CREATE TABLE embeddings (
  space      TEXT NOT NULL,      -- provider:model:dimension
  text_hash  TEXT NOT NULL,      -- SHA-256 of the embedded text
  dim        INTEGER NOT NULL,
  vector     BLOB NOT NULL,      -- little-endian float32[dim], L2-normalized
  created_at TEXT NOT NULL,
  PRIMARY KEY (space, text_hash)
) WITHOUT ROWID;

-- Every change to a memory, and every pipeline proposal (seed 000 audit).
CREATE TABLE memory_history (
  id            TEXT PRIMARY KEY,
  memory_id     TEXT,
  event         TEXT NOT NULL,   -- created, updated, deleted, restored, merged, promoted, accessed, proposal, …
  old_content   TEXT,
  new_content   TEXT,
  old_json      TEXT,            -- full prior record, so any change can be undone
  new_json      TEXT,
  changed_by    TEXT,
  reason        TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL
);
CREATE INDEX idx_history_memory ON memory_history(memory_id, created_at);
CREATE INDEX idx_history_created ON memory_history(created_at);

-- Background work (seed 000 worker model); several job types share the table.
CREATE TABLE memory_jobs (
  id           TEXT PRIMARY KEY,
  job_type     TEXT NOT NULL,    -- extract, document_ingest, reembed, …
  memory_id    TEXT,
  document_id  TEXT,
  payload_json TEXT NOT NULL DEFAULT '{}',
  status       TEXT NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'leased', 'completed', 'dead', 'cancelled')),
  attempts     INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 3,
  run_after    TEXT,
  leased_at    TEXT,
  leased_by    TEXT,
  completed_at TEXT,
  failed_at    TEXT,
  last_error   TEXT,
  result_json  TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE INDEX idx_jobs_status_created ON memory_jobs(status, created_at);
-- At most one open job per (type, memory): enqueue deduplication (seed 000).
CREATE UNIQUE INDEX uq_jobs_open_memory ON memory_jobs(job_type, memory_id)
  WHERE status IN ('pending', 'leased') AND memory_id IS NOT NULL;

-- Typed links between memories (seed 003): SOLVES, CAUSES, REQUIRES, RELATED_TO, SUPERSEDES, …
CREATE TABLE memory_relationships (
  id             TEXT PRIMARY KEY,
  from_memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  to_memory_id   TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  relationship   TEXT NOT NULL,
  strength       REAL NOT NULL DEFAULT 1.0 CHECK (strength >= 0 AND strength <= 1),
  context        TEXT,
  created_at     TEXT NOT NULL,
  UNIQUE (from_memory_id, to_memory_id, relationship)
);
CREATE INDEX idx_relationships_to ON memory_relationships(to_memory_id);

CREATE TABLE consolidation_suggestions (
  id          TEXT PRIMARY KEY,
  memory_a_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  memory_b_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  similarity  REAL NOT NULL,
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
  project_id  TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  resolved_at TEXT,
  resolved_by TEXT,
  UNIQUE (memory_a_id, memory_b_id)
);
CREATE INDEX idx_suggestions_status ON consolidation_suggestions(status) WHERE status = 'pending';
CREATE INDEX idx_suggestions_project ON consolidation_suggestions(project_id);
CREATE INDEX idx_suggestions_similarity ON consolidation_suggestions(similarity DESC);

CREATE TABLE consolidation_log (
  id               TEXT PRIMARY KEY,
  target_id        TEXT NOT NULL,
  source_ids       TEXT NOT NULL,   -- JSON array
  merge_strategy   TEXT NOT NULL CHECK (merge_strategy IN ('latest_wins', 'append', 'smart_merge')),
  similarity_score REAL,
  content_before   TEXT,
  content_after    TEXT,
  performed_by     TEXT,
  created_at       TEXT NOT NULL
);
CREATE INDEX idx_consolidation_log_target ON consolidation_log(target_id);
CREATE INDEX idx_consolidation_log_created ON consolidation_log(created_at DESC);
