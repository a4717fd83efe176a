-- Schedules and reminders (docs/schedules.md): durable definitions with a cron, one-shot or
-- interval cadence, and the history of their runs. Every timestamp is an ISO-8601 UTC string
-- bound from JavaScript, so replaying the operation log is exact.
--
-- Beyond the columns of the specification, a schedule holds its lease (the run in progress:
-- who runs it, until when) and why it was paused; a run holds the due time it ran for (unique
-- per schedule: a due time is claimed once, across owners and takeovers), whether it started
-- late and how many earlier due times it stood for, the memories it recalled and its error.
-- finished_at is NULL while the run is in progress (status 'running').

CREATE TABLE schedules (
  schedule_id          TEXT PRIMARY KEY,
  user_id              TEXT NOT NULL,
  name                 TEXT,
  goal                 TEXT NOT NULL,
  cadence_json         TEXT NOT NULL,
  notification_policy  TEXT NOT NULL DEFAULT 'always' CHECK (notification_policy IN ('always', 'on_failure', 'never')),
  status               TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'completed')),
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  next_run_at          TEXT,
  last_run_at          TEXT,
  last_run_status      TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  channel_id           TEXT,
  channel_context_id   TEXT,
  created_by           TEXT,
  pause_reason         TEXT,
  next_trigger         TEXT NOT NULL DEFAULT 'schedule' CHECK (next_trigger IN ('schedule', 'retry', 'snooze')),
  lease_run_id         TEXT,
  lease_owner          TEXT,
  lease_expires_at     TEXT
);

CREATE INDEX idx_schedules_user ON schedules(user_id);
CREATE INDEX idx_schedules_due ON schedules(next_run_at) WHERE status = 'active';
CREATE INDEX idx_schedules_user_status ON schedules(user_id, status);
CREATE INDEX idx_schedules_user_name ON schedules(user_id, name);

CREATE TABLE schedule_runs (
  run_id           TEXT PRIMARY KEY,
  schedule_id      TEXT NOT NULL,
  due_at           TEXT NOT NULL,
  trigger          TEXT NOT NULL DEFAULT 'schedule' CHECK (trigger IN ('schedule', 'retry', 'snooze', 'manual')),
  started_at       TEXT NOT NULL,
  finished_at      TEXT,
  status           TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
  late             INTEGER NOT NULL DEFAULT 0,
  missed           INTEGER NOT NULL DEFAULT 0,
  output_summary   TEXT,
  output           TEXT,
  error            TEXT,
  memory_ids       TEXT NOT NULL DEFAULT '[]',
  turn_count       INTEGER NOT NULL DEFAULT 0,
  cost             REAL NOT NULL DEFAULT 0.0,
  notified         INTEGER NOT NULL DEFAULT 0,
  lease_owner      TEXT,
  lease_expires_at TEXT,
  FOREIGN KEY (schedule_id) REFERENCES schedules(schedule_id) ON DELETE CASCADE
);

CREATE INDEX idx_schedule_runs_schedule_started ON schedule_runs(schedule_id, started_at DESC);
-- A due time is run once: a second claim of the same (schedule, due time) fails here.
CREATE UNIQUE INDEX idx_schedule_runs_due ON schedule_runs(schedule_id, due_at);
CREATE INDEX idx_schedule_runs_running ON schedule_runs(status) WHERE status = 'running';
CREATE INDEX idx_schedule_runs_unnotified ON schedule_runs(finished_at) WHERE notified = 0 AND status <> 'running';
