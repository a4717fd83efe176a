-- Team memory (docs/team.md): what this store last exchanged with its PostgreSQL server. Every
-- value is bound from JavaScript (sequence numbers, hashes, timestamps), so replaying the
-- operation log is exact. The server itself is never named here: its connection settings live
-- in agent.yaml / settings and its password in the keychain.

-- One row: how far this store pushed (a cursor of its own change feed, memory_events.seq) and
-- pulled (the server's sequence number), and which server and project schema that was with.
CREATE TABLE team_sync (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  server_id      TEXT,               -- the server schema's id; a different one starts over
  pushed_through INTEGER NOT NULL,   -- memory_events.seq pushed through
  pulled_through INTEGER NOT NULL,   -- server seq applied through
  uploaded_at    TEXT,              -- when every memory of the store was first pushed (NULL: not yet)
  updated_at     TEXT
);
INSERT INTO team_sync (id, server_id, pushed_through, pulled_through, uploaded_at, updated_at) VALUES (1, NULL, 0, 0, NULL, NULL);

-- Per memory: the server's sequence number of the version this store has (the base of its next
-- push) and the hash of that version's shared fields (a local state with the same hash has
-- nothing new to push: it came from the server).
CREATE TABLE team_memories (
  memory_id  TEXT PRIMARY KEY,
  server_seq INTEGER NOT NULL,
  state_hash TEXT NOT NULL,
  author     TEXT,              -- who pushed that version (the person's team name)
  machine    TEXT               -- from which machine
);

-- A local version the server did not take because another one was pushed first (server order
-- wins): kept here, and in the memory's history, until a person resolves it.
CREATE TABLE team_conflicts (
  id            TEXT PRIMARY KEY,
  memory_id     TEXT NOT NULL,
  server_seq    INTEGER NOT NULL,     -- the server's version that won
  server_author TEXT,
  local_json    TEXT NOT NULL,        -- the shared fields of the version that lost
  created_at    TEXT NOT NULL,
  resolved_at   TEXT,
  resolution    TEXT                  -- kept_server, kept_mine
);
CREATE INDEX idx_team_conflicts_open ON team_conflicts(memory_id) WHERE resolved_at IS NULL;
