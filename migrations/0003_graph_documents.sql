-- Agent Memory schema: knowledge graph (seed 000 "Knowledge Graph", seed 004 provenance),
-- documents (seed 000 "Document Ingest") and the pipeline's pending-review list.
-- Timestamps are bound from JavaScript (exact log replay).

CREATE TABLE entities (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE,          -- original casing of the first mention
  canonical_name TEXT NOT NULL UNIQUE,          -- lowercase, whitespace-normalized
  entity_type    TEXT NOT NULL DEFAULT 'unknown',
  mentions       INTEGER NOT NULL DEFAULT 0,    -- memories that mention it (provenance count)
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX idx_entities_mentions ON entities(mentions DESC);

CREATE TABLE relations (
  id               TEXT PRIMARY KEY,
  source_entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  target_entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  relation_type    TEXT NOT NULL,
  strength         REAL NOT NULL DEFAULT 1.0,
  mentions         INTEGER NOT NULL DEFAULT 0,
  confidence       REAL NOT NULL DEFAULT 0,      -- running average over mentions
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (source_entity_id, target_entity_id, relation_type)
);
CREATE INDEX idx_relations_target ON relations(target_entity_id);

-- Provenance: which memory mentions which entity (seed 000) …
CREATE TABLE memory_entity_mentions (
  memory_id    TEXT NOT NULL,
  entity_id    TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  mention_text TEXT NOT NULL,
  confidence   REAL NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (memory_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX idx_mentions_entity ON memory_entity_mentions(entity_id);

-- … and which memory asserted which relation (seed 004 memory_edges).
CREATE TABLE memory_relation_provenance (
  memory_id   TEXT NOT NULL,
  relation_id TEXT NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
  confidence  REAL NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (memory_id, relation_id)
) WITHOUT ROWID;
CREATE INDEX idx_relation_prov_relation ON memory_relation_provenance(relation_id);

CREATE TABLE documents (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL,
  source_type   TEXT NOT NULL,                  -- url | text | file
  source_url    TEXT,
  title         TEXT,
  raw_content   TEXT,
  status        TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed')),
  error         TEXT,
  chunk_count   INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX idx_documents_status ON documents(status);

CREATE TABLE document_memories (
  document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  memory_id   TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (document_id, chunk_index)
) WITHOUT ROWID;
CREATE INDEX idx_document_memories_memory ON document_memories(memory_id);

-- At most one open ingest job per document (enqueue deduplication).
CREATE UNIQUE INDEX uq_jobs_open_document ON memory_jobs(job_type, document_id)
  WHERE status IN ('pending', 'leased') AND document_id IS NOT NULL;

-- Destructive proposals flagged reviewNeeded wait here for a person (full mode).
CREATE TABLE pipeline_reviews (
  id               TEXT PRIMARY KEY,
  history_id       TEXT NOT NULL,                -- the proposal's audit row in memory_history
  action           TEXT NOT NULL CHECK (action IN ('UPDATE', 'DELETE')),
  target_id        TEXT NOT NULL,
  source_memory_id TEXT,
  fact_content     TEXT NOT NULL,
  fact_type        TEXT NOT NULL DEFAULT 'fact',
  confidence       REAL NOT NULL,
  reason           TEXT NOT NULL,
  conflict         TEXT,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'stale')),
  result_history_id TEXT,
  created_at       TEXT NOT NULL,
  resolved_at      TEXT,
  resolved_by      TEXT
);
CREATE INDEX idx_reviews_status ON pipeline_reviews(status, created_at);
