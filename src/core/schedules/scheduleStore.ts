/**
 * The scheduler's store API (docs/schedules.md "Store API"): create, get, search with filters
 * (a count and a page), count, delete, update with a patch, due (the index on next_run_at),
 * record a run and reschedule in one transaction, prune the run history, the history and a run
 * by id. Each write is one short transaction of the op log; every id and time is bound from JS.
 * Claiming a due time and finishing a run live in runs.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store';
import type { Row, Tx } from '../store/storeTypes';
import { UserFacingError } from '../util/errors';
import { shownValue } from '../util/shownValue';
import { nextRunForCadence, validateCadence } from './cadence';
import { runFromRow, scheduleFromRow } from './rows';
import {
  CHANNEL_IDS,
  NOTIFICATION_POLICIES,
  PATCH_STATUSES,
  SCHEDULE_LIMITS,
  SCHEDULE_STATUSES,
  type NewSchedule,
  type NotificationPolicy,
  type RunStatus,
  type ScheduleCadence,
  type ScheduleDefinition,
  type SchedulePatch,
  type ScheduleRunRecord,
  type ScheduleSearchFilters,
  type ScheduleSearchResult,
  type ScheduleStatus,
} from './types';

/** Who owns the schedules of a local store: it belongs to one user (the store home is private). */
export const LOCAL_USER = 'local';

export interface ScheduleStoreOptions {
  now?: () => Date;
  /** Shortest time between runs of a recurring schedule (default SCHEDULE_LIMITS.minIntervalSeconds). */
  minIntervalSeconds?: number;
  /** Runs kept per schedule (default SCHEDULE_LIMITS.keepRuns). */
  keepRuns?: number;
}

const invalid = (field: string, reason: string) => new UserFacingError(`${field}: ${reason}`, 'invalid_input');

const ORDER_BY: Readonly<Record<NonNullable<ScheduleSearchFilters['order']>, string>> = {
  next: "status = 'active' DESC, next_run_at IS NULL, next_run_at, created_at",
  created: 'created_at DESC, schedule_id',
  name: 'coalesce(name, goal) COLLATE NOCASE, created_at',
};

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

/** What a run finished with, for recordRunAndReschedule. */
export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  finishedAt: string;
  output?: string | null;
  error?: string | null;
  memoryIds?: string[];
  turnCount?: number;
  cost?: number;
}

/** How the schedule goes on after a run. */
export interface Reschedule {
  nextRunAt: string | null;
  nextTrigger?: ScheduleDefinition['nextTrigger'];
  status?: ScheduleStatus;
  consecutiveFailures: number;
  pauseReason?: string | null;
}

export class ScheduleStore {
  private readonly now: () => Date;

  constructor(
    readonly store: Store,
    private readonly opts: ScheduleStoreOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  get minIntervalSeconds(): number {
    return this.opts.minIntervalSeconds ?? SCHEDULE_LIMITS.minIntervalSeconds;
  }

  /** Validates and stores a new schedule; its first due time is computed from its cadence. */
  create(input: NewSchedule): ScheduleDefinition {
    const now = this.now();
    const goal = checkGoal(input.goal);
    const name = checkName(input.name);
    const policy = checkPolicy(input.notificationPolicy ?? 'always');
    if (input.channelId !== undefined && !CHANNEL_IDS.includes(input.channelId))
      throw invalid('channelId', `must be one of ${CHANNEL_IDS.join(', ')}, got ${shownValue(input.channelId)}`);
    const cadence = validateCadence(input.cadence, { now, minIntervalSeconds: this.minIntervalSeconds });
    const next = nextRunForCadence(cadence, now);
    if (!next) throw invalid('cadence', 'it has no due time left');
    if (this.count() >= SCHEDULE_LIMITS.maxSchedules)
      throw invalid('schedule', `this store already holds ${SCHEDULE_LIMITS.maxSchedules} schedules; delete some first`);
    const id = randomUUID();
    const at = now.toISOString();
    this.store.transaction((tx) =>
      tx.run(
        `INSERT INTO schedules (schedule_id, user_id, name, goal, cadence_json, notification_policy, status, created_at, updated_at,
           next_run_at, channel_id, channel_context_id, created_by)
         VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?)`,
        [
          id,
          input.userId ?? LOCAL_USER,
          name,
          goal,
          JSON.stringify(cadence),
          policy,
          at,
          at,
          next.toISOString(),
          input.channelId ?? null,
          input.channelContextId?.slice(0, 200) ?? null,
          input.createdBy?.slice(0, 100) ?? null,
        ],
      ),
    );
    return this.get(id);
  }

  /** The schedule, or undefined. */
  find(id: string): ScheduleDefinition | undefined {
    const row = this.store.get<Row>('SELECT * FROM schedules WHERE schedule_id = ?', [id]);
    return row ? scheduleFromRow(row) : undefined;
  }

  /** The schedule; not_found when there is none. */
  get(id: string): ScheduleDefinition {
    const s = this.find(id);
    if (!s) throw new UserFacingError(`No schedule with id ${id}.`, 'not_found');
    return s;
  }

  /** A page of the schedules matching `filters`, with how many match in all (two queries: count, then the page). */
  search(filters: ScheduleSearchFilters = {}): ScheduleSearchResult {
    const { where, params } = whereOf(filters);
    const offset = filters.offset ?? 0;
    const limit = filters.limit ?? DEFAULT_PAGE;
    if (!Number.isInteger(offset) || offset < 0) throw invalid('offset', `must be a whole number ≥ 0, got ${shownValue(offset)}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      throw invalid('limit', `must be a whole number from 1 to ${MAX_PAGE}, got ${shownValue(limit)}`);
    const order = ORDER_BY[filters.order ?? 'next'];
    if (!order) throw invalid('order', `must be one of ${Object.keys(ORDER_BY).join(', ')}, got ${shownValue(filters.order)}`);
    const total = Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM schedules ${where}`, params)!.n);
    const rows = this.store.all<Row>(`SELECT * FROM schedules ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, limit, offset]);
    return { items: rows.map(scheduleFromRow), total, offset, limit };
  }

  /** How many schedules there are (of one user, when given). */
  count(userId?: string): number {
    const row =
      userId === undefined
        ? this.store.get<{ n: number }>('SELECT count(*) AS n FROM schedules')
        : this.store.get<{ n: number }>('SELECT count(*) AS n FROM schedules WHERE user_id = ?', [userId]);
    return Number(row!.n);
  }

  /** Deletes the schedule and (by cascade) its runs; false when there was none. */
  delete(id: string): boolean {
    return this.store.transaction((tx) => {
      tx.run('DELETE FROM schedules WHERE schedule_id = ?', [id]);
      return tx.changes() > 0;
    });
  }

  /**
   * Changes the fields given. A new cadence is validated and sets the next due time; pausing
   * clears it (with the reason); resuming sets it from now and forgets earlier failures.
   */
  update(id: string, patch: SchedulePatch): ScheduleDefinition {
    const s = this.get(id);
    const now = this.now();
    const sets: string[] = [];
    const params: (string | number | null)[] = [];
    const set = (col: string, v: string | number | null) => {
      sets.push(`${col} = ?`);
      params.push(v);
    };
    if (patch.name !== undefined) set('name', patch.name === null ? null : checkName(patch.name));
    if (patch.goal !== undefined) set('goal', checkGoal(patch.goal));
    if (patch.notificationPolicy !== undefined) set('notification_policy', checkPolicy(patch.notificationPolicy));
    const cadence = patch.cadence ? validateCadence(patch.cadence, { now, minIntervalSeconds: this.minIntervalSeconds }) : s.cadence;
    if (patch.cadence) set('cadence_json', JSON.stringify(cadence));
    for (const [col, v] of Object.entries(statusColumns(s, patch, cadence, now))) set(col, v);
    if (!sets.length) return s;
    set('updated_at', now.toISOString());
    this.store.transaction((tx) => tx.run(`UPDATE schedules SET ${sets.join(', ')} WHERE schedule_id = ?`, [...params, id]));
    return this.get(id);
  }

  /**
   * One more due time at `until` (a notice snoozed): the schedule is active again until then;
   * after that run it goes on by its cadence (a one-shot completes again).
   */
  snooze(id: string, until: Date): ScheduleDefinition {
    const s = this.get(id);
    const now = this.now();
    if (until.getTime() <= now.getTime()) throw invalid('until', 'a snooze must end in the future');
    this.store.transaction((tx) =>
      tx.run(
        `UPDATE schedules SET status = 'active', next_run_at = ?, next_trigger = 'snooze', pause_reason = NULL, updated_at = ?
          WHERE schedule_id = ?`,
        [until.toISOString(), now.toISOString(), s.id],
      ),
    );
    return this.get(id);
  }

  /** Active schedules due at `now` or before, soonest first, whose run is not under way (the index on next_run_at). */
  due(now: Date, limit: number): ScheduleDefinition[] {
    const at = now.toISOString();
    return this.store
      .all<Row>(
        `SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= ?
           AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
         ORDER BY next_run_at LIMIT ?`,
        [at, at, limit],
      )
      .map(scheduleFromRow);
  }

  /** The soonest due time of an active schedule (undefined when none is active). */
  nextDueAt(): string | undefined {
    const row = this.store.get<{ t: string | null }>(
      "SELECT next_run_at AS t FROM schedules WHERE status = 'active' AND next_run_at IS NOT NULL ORDER BY next_run_at LIMIT 1",
    );
    return row?.t ?? undefined;
  }

  /**
   * Finishes run `runId` and moves the schedule on, in ONE transaction: the run's outcome, the
   * schedule's next due time and status, its last run, failures in a row, the lease released,
   * and the history pruned to the newest runs.
   */
  recordRunAndReschedule(scheduleId: string, runId: string, outcome: RunOutcome, next: Reschedule): void {
    const output = outcome.output == null ? null : outcome.output.slice(0, SCHEDULE_LIMITS.outputChars);
    this.store.transaction((tx) => {
      tx.run(
        `UPDATE schedule_runs SET status = ?, finished_at = ?, output = ?, output_summary = ?, error = ?, memory_ids = ?,
           turn_count = ?, cost = ?, lease_owner = NULL, lease_expires_at = NULL WHERE run_id = ?`,
        [
          outcome.status,
          outcome.finishedAt,
          output,
          output === null ? null : output.slice(0, SCHEDULE_LIMITS.summaryChars),
          outcome.error?.slice(0, 2000) ?? null,
          JSON.stringify(outcome.memoryIds ?? []),
          outcome.turnCount ?? 0,
          outcome.cost ?? 0,
          runId,
        ],
      );
      tx.run(
        `UPDATE schedules SET next_run_at = ?, next_trigger = ?, status = coalesce(?, status), last_run_at = ?, last_run_status = ?,
           consecutive_failures = ?, pause_reason = CASE WHEN ? IS NULL THEN pause_reason ELSE ? END,
           lease_run_id = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE schedule_id = ?`,
        [
          next.nextRunAt,
          next.nextTrigger ?? 'schedule',
          next.status ?? null,
          outcome.finishedAt,
          outcome.status,
          next.consecutiveFailures,
          next.pauseReason ?? null,
          next.pauseReason ?? null,
          outcome.finishedAt,
          scheduleId,
        ],
      );
      pruneIn(tx, scheduleId, this.opts.keepRuns ?? SCHEDULE_LIMITS.keepRuns);
    });
  }

  /** Keeps the newest `keep` runs of a schedule (a run under way is always kept); how many were removed. */
  pruneRunHistory(scheduleId: string, keep: number): number {
    if (!Number.isInteger(keep) || keep < 0) throw invalid('keep', `must be a whole number ≥ 0, got ${shownValue(keep)}`);
    return this.store.transaction((tx) => pruneIn(tx, scheduleId, keep));
  }

  /** The newest runs of a schedule first. */
  runHistory(scheduleId: string, limit = 20): ScheduleRunRecord[] {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      throw invalid('limit', `must be a whole number from 1 to ${MAX_PAGE}, got ${shownValue(limit)}`);
    return this.store
      .all<Row>('SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?', [scheduleId, limit])
      .map(runFromRow);
  }

  /** One run; not_found when there is none. */
  runById(runId: string): ScheduleRunRecord {
    const row = this.store.get<Row>('SELECT * FROM schedule_runs WHERE run_id = ?', [runId]);
    if (!row) throw new UserFacingError(`No schedule run with id ${runId}.`, 'not_found');
    return runFromRow(row);
  }
}

function pruneIn(tx: Tx, scheduleId: string, keep: number): number {
  tx.run(
    `DELETE FROM schedule_runs WHERE schedule_id = ? AND status <> 'running' AND run_id NOT IN
       (SELECT run_id FROM schedule_runs WHERE schedule_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?)`,
    [scheduleId, scheduleId, keep],
  );
  return tx.changes();
}

/** The columns a pause or a resume (or a new cadence of an active or completed schedule) sets. */
function statusColumns(
  s: ScheduleDefinition,
  patch: SchedulePatch,
  cadence: ScheduleCadence,
  now: Date,
): Record<string, string | number | null> {
  const status = statusAfter(s, patch);
  if (status === 'paused')
    return {
      status: 'paused',
      next_run_at: null,
      pause_reason: patch.pauseReason?.slice(0, 500) ?? s.pauseReason ?? 'Paused by a person.',
    };
  if (status !== 'active' || (!patch.cadence && s.status === 'active')) return {};
  const next = nextRunForCadence(cadence, now);
  if (!next) throw invalid('cadence', 'it has no due time left: give a new time to resume it');
  return { status: 'active', next_run_at: next.toISOString(), next_trigger: 'schedule', pause_reason: null, consecutive_failures: 0 };
}

function statusAfter(s: ScheduleDefinition, patch: SchedulePatch): 'active' | 'paused' | undefined {
  if (patch.status === undefined)
    return s.status === 'completed' && patch.cadence ? 'active' : s.status === 'active' ? 'active' : undefined;
  if (!PATCH_STATUSES.includes(patch.status)) throw invalid('status', `must be active (resume) or paused, got ${shownValue(patch.status)}`);
  return patch.status;
}

function checkGoal(goal: unknown): string {
  if (typeof goal !== 'string' || !goal.trim()) throw invalid('goal', 'say what the reminder is for (it cannot be empty)');
  const g = goal.trim();
  if (g.length > SCHEDULE_LIMITS.goalChars)
    throw invalid(
      'goal',
      `is ${g.length} characters long; at most ${SCHEDULE_LIMITS.goalChars} fit (save longer text as a memory and refer to it)`,
    );
  return g;
}

function checkName(name: unknown): string | null {
  if (name === undefined || name === null) return null;
  if (typeof name !== 'string') throw invalid('name', 'must be text');
  const n = name.trim();
  if (n.length > SCHEDULE_LIMITS.nameChars)
    throw invalid('name', `is ${n.length} characters long; at most ${SCHEDULE_LIMITS.nameChars} fit`);
  return n || null;
}

function checkPolicy(p: unknown): NotificationPolicy {
  if (!NOTIFICATION_POLICIES.includes(p as NotificationPolicy))
    throw invalid('notificationPolicy', `must be one of ${NOTIFICATION_POLICIES.join(', ')}, got ${shownValue(p)}`);
  return p as NotificationPolicy;
}

function whereOf(f: ScheduleSearchFilters): { where: string; params: (string | number)[] } {
  const conds: string[] = [];
  const params: (string | number)[] = [];
  if (f.userId !== undefined) {
    conds.push('user_id = ?');
    params.push(f.userId);
  }
  if (f.status !== undefined) {
    if (!SCHEDULE_STATUSES.includes(f.status))
      throw invalid('status', `must be one of ${SCHEDULE_STATUSES.join(', ')}, got ${shownValue(f.status)}`);
    conds.push('status = ?');
    params.push(f.status);
  }
  if (f.channelId !== undefined) {
    conds.push('channel_id = ?');
    params.push(f.channelId);
  }
  if (f.dueBefore !== undefined) {
    const t = Date.parse(f.dueBefore);
    if (Number.isNaN(t)) throw invalid('dueBefore', `must be a date and time, got ${shownValue(f.dueBefore)}`);
    conds.push("status = 'active' AND next_run_at <= ?");
    params.push(new Date(t).toISOString());
  }
  for (const word of (f.text ?? '').split(/\s+/).filter(Boolean).slice(0, 10)) {
    conds.push("(instr(lower(goal), ?) > 0 OR instr(lower(coalesce(name, '')), ?) > 0)");
    params.push(word.toLowerCase(), word.toLowerCase());
  }
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}
