/**
 * Schedules and reminders (docs/schedules.md): a goal that runs on a cadence — cron in an IANA
 * time zone, once at a time, or every N seconds — and the record of each run. The store API is
 * scheduleStore.ts, the cadence math cadence.ts, the runs runner.ts.
 */

/** When a schedule runs. Times are ISO-8601 UTC; `timezone` is the IANA zone its times are read and shown in. */
export type ScheduleCadence =
  /** A five-field cron expression (minute hour day-of-month month day-of-week) read in `timezone`. */
  | { kind: 'cron'; expr: string; timezone: string }
  /** Once, at `at`. */
  | { kind: 'once'; at: string; timezone: string }
  /** Every `everySeconds`, counted from `anchor` (its first run), so runs never drift. */
  | { kind: 'interval'; everySeconds: number; anchor: string; timezone: string };

export type CadenceKind = ScheduleCadence['kind'];
export const CADENCE_KINDS: readonly CadenceKind[] = ['cron', 'once', 'interval'];

/** active: runs when due; paused: by a person or after repeated failures (pauseReason says which); completed: a one-shot that ran. */
export type ScheduleStatus = 'active' | 'paused' | 'completed';
export const SCHEDULE_STATUSES: readonly ScheduleStatus[] = ['active', 'paused', 'completed'];
/** What an update may set: active resumes, paused pauses. */
export const PATCH_STATUSES = ['active', 'paused'] as const;

/** When a run's notice is shown: after every run (default), only after a failed one, never. */
export type NotificationPolicy = 'always' | 'on_failure' | 'never';
export const NOTIFICATION_POLICIES: readonly NotificationPolicy[] = ['always', 'on_failure', 'never'];

/** running: claimed and under way; interrupted: its owner stopped during it (found by the next owner). */
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'interrupted';

/** Why a run happened: its cadence, a retry after a failure, a snooze, or a person's "run now". */
export type RunTrigger = 'schedule' | 'retry' | 'snooze' | 'manual';

/** Where a schedule was made, so a run's notice can go back there: a VS Code window, an MCP client, the CLI. */
export type ChannelId = 'vscode' | 'mcp' | 'cli';
export const CHANNEL_IDS: readonly ChannelId[] = ['vscode', 'mcp', 'cli'];

export interface ScheduleDefinition {
  id: string;
  userId: string;
  name: string | null;
  goal: string;
  cadence: ScheduleCadence;
  notificationPolicy: NotificationPolicy;
  status: ScheduleStatus;
  createdAt: string;
  updatedAt: string;
  /** The next due time (absent when paused or completed). */
  nextRunAt: string | null;
  /** Why the next run happens: its cadence, a retry after a failure, or a snooze. */
  nextTrigger: Exclude<RunTrigger, 'manual'>;
  lastRunAt: string | null;
  lastRunStatus: RunStatus | null;
  consecutiveFailures: number;
  channelId: ChannelId | null;
  /** The window, MCP client name or terminal the schedule was made in. */
  channelContextId: string | null;
  /** Who made it: "user", or the agent's MCP client name. */
  createdBy: string | null;
  /** Why it is paused (a person paused it, or it failed N times in a row: the last error). */
  pauseReason: string | null;
  /** The run in progress, when one is. */
  runningRunId: string | null;
}

export interface ScheduleRunRecord {
  id: string;
  scheduleId: string;
  /** The due time this run is for (unique per schedule). */
  dueAt: string;
  trigger: RunTrigger;
  startedAt: string;
  /** Absent while running. */
  finishedAt: string | null;
  status: RunStatus;
  /** It started well after its due time (no owner was running, or the machine slept). */
  late: boolean;
  /** Earlier due times this run stood for (missed while no owner ran: run once, not once each). */
  missed: number;
  /** The first 500 characters of `output`. */
  outputSummary: string | null;
  output: string | null;
  error: string | null;
  /** Memories the run recalled. */
  memoryIds: string[];
  /** Model calls the run made (0 without a model). */
  turnCount: number;
  /** What the run cost (0 with a local model). */
  cost: number;
  /** Someone was shown its notice. */
  notified: boolean;
}

/** A new schedule: the cadence already parsed (phrases.ts turns "every Monday at 10" into one). */
export interface NewSchedule {
  goal: string;
  cadence: ScheduleCadence;
  name?: string;
  notificationPolicy?: NotificationPolicy;
  channelId?: ChannelId;
  channelContextId?: string;
  createdBy?: string;
  userId?: string;
}

/** What update changes: only the fields given. `status` pauses or resumes. */
export interface SchedulePatch {
  name?: string | null;
  goal?: string;
  cadence?: ScheduleCadence;
  notificationPolicy?: NotificationPolicy;
  status?: 'active' | 'paused';
  /** With status paused: why (shown with the schedule). */
  pauseReason?: string;
}

export interface ScheduleSearchFilters {
  userId?: string;
  status?: ScheduleStatus;
  channelId?: ChannelId;
  /** Words of the name or goal (every word, case-insensitive). */
  text?: string;
  /** Only schedules due at or before this time. */
  dueBefore?: string;
  /** next: soonest first (default), created: newest first, name: by name. */
  order?: 'next' | 'created' | 'name';
  offset?: number;
  limit?: number;
}

export interface ScheduleSearchResult {
  items: ScheduleDefinition[];
  total: number;
  offset: number;
  limit: number;
}

/** Limits of what a schedule may hold (docs/schedules.md "Limits"). */
export const SCHEDULE_LIMITS = {
  /** Characters of a goal. */
  goalChars: 2000,
  /** Characters of a name. */
  nameChars: 200,
  /** Shortest time between two runs of a recurring schedule, in seconds. */
  minIntervalSeconds: 300,
  /** Characters of a run's stored output. */
  outputChars: 20_000,
  /** Characters of a run's output summary. */
  summaryChars: 500,
  /** Runs kept per schedule (older ones are pruned). */
  keepRuns: 50,
  /** Failed runs in a row before the schedule is paused. */
  maxConsecutiveFailures: 3,
  /** Schedules of one store. */
  maxSchedules: 100_000,
} as const;

/** A finished run and its schedule, as a notice shows it. */
export interface Notice {
  schedule: ScheduleDefinition;
  run: ScheduleRunRecord;
}

/** What agents see in the project context (notices.ts reminders()). */
export interface Reminders {
  /** Active schedules due within `withinMs`, soonest first. */
  dueSoon: ScheduleDefinition[];
  /** Runs finished within `recentMs`, newest first, with their schedules. */
  recent: Notice[];
}
