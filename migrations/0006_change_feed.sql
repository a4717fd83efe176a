-- Change feed and webhook outbox (docs/changes.md). Every value is bound from JavaScript (ids,
-- timestamps, the feed's sequence numbers): nothing here may call CURRENT_TIMESTAMP or random(),
-- so replaying the operation log is exact.

-- One row per change of a memory (created, updated, deleted, merged, expired, restored,
-- promoted), written in the same transaction as the change. No memory text: ids, version,
-- who and when. `seq` is the feed's cursor.
CREATE TABLE memory_events (
  seq         INTEGER PRIMARY KEY,   -- change_seq.seq at the time: bound from JS, never reused
  event_type  TEXT NOT NULL,         -- memory.created, memory.updated, …
  memory_id   TEXT NOT NULL,
  store       TEXT NOT NULL,         -- project or global (the memory's scope)
  project_id  TEXT NOT NULL,
  version     INTEGER NOT NULL,      -- the memory's version after the change
  actor       TEXT,                  -- who made the change (user, cli, an agent, lifecycle, pipeline-v2, …)
  merged_into TEXT,                  -- memory.merged of an absorbed memory: the memory it went into
  created_at  TEXT NOT NULL
);
CREATE INDEX idx_memory_events_created ON memory_events(created_at);

-- The highest sequence number ever given (kept when retention removed every row, so a cursor
-- is never reused) and the highest one retention removed (a cursor below it missed events).
CREATE TABLE change_seq (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  seq            INTEGER NOT NULL,
  purged_through INTEGER NOT NULL
);
INSERT INTO change_seq (id, seq, purged_through) VALUES (1, 0, 0);

-- The webhooks that receive deliveries: those configured (agent.yaml / settings) whose signing
-- secret exists, kept in step by the store's owner. A change queues a delivery for each
-- webhook subscribed to its type, in the change's transaction (an outbox).
CREATE TABLE webhooks (
  name        TEXT PRIMARY KEY,
  url         TEXT NOT NULL,
  events_json TEXT NOT NULL,         -- JSON array of event types; [] = every type
  updated_at  TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,  -- the delivery id receivers de-duplicate on
  webhook         TEXT NOT NULL,     -- webhooks.name (the row stays when the webhook is removed)
  event_seq       INTEGER,           -- memory_events.seq; NULL for a test event
  event_type      TEXT NOT NULL,
  payload_json    TEXT NOT NULL,     -- the event as sent (no memory text)
  status          TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'delivered', 'dead', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_attempt_at TEXT,
  last_status     INTEGER,           -- HTTP status of the last answer (NULL: none came)
  last_error      TEXT,
  delivered_at    TEXT,
  created_at      TEXT NOT NULL
);
-- A webhook's queue, in the feed's order.
CREATE INDEX idx_deliveries_queue ON webhook_deliveries(webhook, status, event_seq);
CREATE INDEX idx_deliveries_created ON webhook_deliveries(created_at);
