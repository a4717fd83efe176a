/**
 * Exactly once per due time (docs/schedules.md "Runs"). A run is claimed in ONE transaction that
 * records it as started and takes the schedule's lease: the row is durable before any work
 * begins, and the unique index on (schedule, due time) refuses a second claim of the same due
 * time, whoever asks. Finishing records the outcome and the next due time in one transaction
 * (ScheduleStore.recordRunAndReschedule). A run whose owner stopped mid-way is found by the next
 * owner (its lease names another process, or it expired) and recorded as interrupted: a failure,
 * retried later as a new due time, never run again for the old one.
 */
import { randomUUID } from 'node:crypto';
import type { Row, Tx } from '../store/storeTypes';
import { UserFacingError } from '../util/errors';
import { dueTimesBetween, nextRunForCadence } from './cadence';
import { runFromRow, scheduleFromRow } from './rows';
import type { Reschedule, RunOutcome, ScheduleStore } from './scheduleStore';
import { SCHEDULE_LIMITS, type RunTrigger, type ScheduleDefinition, type ScheduleRunRecord } from './types';

/** A run that starts this long after its due time is late (no owner ran then, or the machine slept). */
export const LATE_AFTER_MS = 2 * 60_000;
/** Retry delays after failures in a row: 1, 4, 16 … minutes, at most an hour. */
const RETRY_BASE_MS = 60_000;
const RETRY_CAP_MS = 60 * 60_000;

export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_BASE_MS * 4 ** Math.max(0, failures - 1), RETRY_CAP_MS);
}

export interface ClaimOptions {
  /** Who runs it (the owner process and this runner). */
  owner: string;
  /** How long the lease holds before another owner may call the run interrupted. */
  leaseMs: number;
  now: Date;
}

/**
 * Claims the schedule's current due time if it is due and not under way: the run row (status
 * running) and the lease in one transaction. Undefined when there is nothing to claim.
 */
export function claimDue(schedules: ScheduleStore, scheduleId: string, opts: ClaimOptions): ScheduleRunRecord | undefined {
  const now = opts.now.toISOString();
  return schedules.store.transaction((tx) => {
    const row = tx.get<Row>('SELECT * FROM schedules WHERE schedule_id = ?', [scheduleId]);
    if (!row) return undefined;
    const s = scheduleFromRow(row);
    if (s.status !== 'active' || !s.nextRunAt || s.nextRunAt > now) return undefined;
    if (row.lease_expires_at && String(row.lease_expires_at) > now) return undefined;
    if (tx.get('SELECT 1 AS x FROM schedule_runs WHERE schedule_id = ? AND due_at = ?', [s.id, s.nextRunAt])) {
      // That due time was run already (its record survived where the schedule's did not move): move on, never again.
      const next = nextRunForCadence(s.cadence, opts.now);
      tx.run("UPDATE schedules SET next_run_at = ?, next_trigger = 'schedule', status = ? WHERE schedule_id = ?", [
        next?.toISOString() ?? null,
        next ? 'active' : 'completed',
        s.id,
      ]);
      return undefined;
    }
    const late = opts.now.getTime() - Date.parse(s.nextRunAt) > LATE_AFTER_MS;
    const missed = late && s.nextTrigger === 'schedule' ? dueTimesBetween(s.cadence, new Date(s.nextRunAt), opts.now) : 0;
    return insertRun(tx, s, { dueAt: s.nextRunAt, trigger: s.nextTrigger, late, missed }, opts);
  });
}

/** "Run now": a run for this moment, whatever the cadence says; refused while a run is under way. */
export function claimManual(schedules: ScheduleStore, scheduleId: string, opts: ClaimOptions): ScheduleRunRecord {
  const now = opts.now.toISOString();
  return schedules.store.transaction((tx) => {
    const row = tx.get<Row>('SELECT * FROM schedules WHERE schedule_id = ?', [scheduleId]);
    if (!row) throw new UserFacingError(`No schedule with id ${scheduleId}.`, 'not_found');
    const s = scheduleFromRow(row);
    if (row.lease_expires_at && String(row.lease_expires_at) > now)
      throw new UserFacingError(
        `schedule: "${s.name ?? s.goal.slice(0, 60)}" is running now; wait for that run to finish`,
        'invalid_input',
      );
    let dueAt = now;
    // Two manual runs in the same millisecond still get due times of their own.
    while (tx.get('SELECT 1 AS x FROM schedule_runs WHERE schedule_id = ? AND due_at = ?', [s.id, dueAt]))
      dueAt = new Date(Date.parse(dueAt) + 1).toISOString();
    return insertRun(tx, s, { dueAt, trigger: 'manual', late: false, missed: 0 }, opts);
  });
}

function insertRun(
  tx: Tx,
  s: ScheduleDefinition,
  run: { dueAt: string; trigger: RunTrigger; late: boolean; missed: number },
  opts: ClaimOptions,
): ScheduleRunRecord {
  const id = randomUUID();
  const now = opts.now.toISOString();
  const until = new Date(opts.now.getTime() + opts.leaseMs).toISOString();
  tx.run(
    `INSERT INTO schedule_runs (run_id, schedule_id, due_at, trigger, started_at, status, late, missed, lease_owner, lease_expires_at)
     VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
    [id, s.id, run.dueAt, run.trigger, now, run.late ? 1 : 0, run.missed, opts.owner, until],
  );
  tx.run('UPDATE schedules SET lease_run_id = ?, lease_owner = ?, lease_expires_at = ? WHERE schedule_id = ?', [
    id,
    opts.owner,
    until,
    s.id,
  ]);
  return runFromRow(tx.get<Row>('SELECT * FROM schedule_runs WHERE run_id = ?', [id])!);
}

export interface FinishOptions {
  now: Date;
  /** Failed runs in a row before the schedule is paused (default SCHEDULE_LIMITS.maxConsecutiveFailures). */
  maxConsecutiveFailures?: number;
}

/**
 * Records how run `run` ended and moves its schedule on (one transaction): after a success the
 * next due time of the cadence (a one-shot completes); after a failure a retry with backoff,
 * or a pause once it failed N times in a row (the reason says so). A manual run records its
 * outcome and leaves the schedule's course alone. Returns the schedule as it is now (undefined
 * when it was deleted meanwhile) and the finished run.
 */
export function finishRun(
  schedules: ScheduleStore,
  run: ScheduleRunRecord,
  outcome: RunOutcome,
  opts: FinishOptions,
): { schedule: ScheduleDefinition | undefined; run: ScheduleRunRecord | undefined } {
  const s = schedules.find(run.scheduleId); // read now: it may have been edited, paused or deleted during the run
  if (!s) return { schedule: undefined, run: undefined };
  schedules.recordRunAndReschedule(s.id, run.id, outcome, rescheduleAfter(s, run, outcome, opts));
  return { schedule: schedules.find(s.id), run: findRun(schedules, run.id) };
}

function findRun(schedules: ScheduleStore, id: string): ScheduleRunRecord | undefined {
  try {
    return schedules.runById(id);
  } catch {
    return undefined;
  }
}

function rescheduleAfter(s: ScheduleDefinition, run: ScheduleRunRecord, outcome: RunOutcome, opts: FinishOptions): Reschedule {
  const keep: Reschedule = { nextRunAt: s.nextRunAt, nextTrigger: s.nextTrigger, consecutiveFailures: s.consecutiveFailures };
  // A manual run, or a schedule a person paused (or that completed) meanwhile: its course stays as it is.
  if (run.trigger === 'manual' || s.status !== 'active') return keep;
  if (outcome.status === 'succeeded') {
    // From the later of now and the due time: a clock set back never brings the same due time again.
    const from = new Date(Math.max(opts.now.getTime(), Date.parse(run.dueAt)));
    const next = s.nextRunAt && s.nextRunAt > run.dueAt ? new Date(s.nextRunAt) : nextRunForCadence(s.cadence, from);
    return next
      ? { nextRunAt: next.toISOString(), nextTrigger: 'schedule', consecutiveFailures: 0 }
      : { nextRunAt: null, status: 'completed', consecutiveFailures: 0 };
  }
  const failures = s.consecutiveFailures + 1;
  const max = opts.maxConsecutiveFailures ?? SCHEDULE_LIMITS.maxConsecutiveFailures;
  if (failures >= max) {
    const last = outcome.error ? ` The last one: ${outcome.error.trim().replace(/([^.!?])$/, '$1.')}` : '';
    return {
      nextRunAt: null,
      status: 'paused',
      consecutiveFailures: failures,
      pauseReason: `Paused after ${failures} failed runs in a row.${last} Resume it once the cause is fixed.`,
    };
  }
  const retryAt = new Date(opts.now.getTime() + retryDelayMs(failures));
  return { nextRunAt: retryAt.toISOString(), nextTrigger: 'retry', consecutiveFailures: failures };
}

/**
 * Runs left "running" by an owner that stopped (its lease names another owner, or expired):
 * each recorded as interrupted — a failure, retried later, never run again for its due time.
 * Returns the runs it closed.
 */
export function recoverInterrupted(
  schedules: ScheduleStore,
  owner: string,
  opts: FinishOptions,
): { schedule: ScheduleDefinition | undefined; run: ScheduleRunRecord | undefined }[] {
  const now = opts.now.toISOString();
  const stale = schedules.store
    .all<Row>(
      `SELECT * FROM schedule_runs WHERE status = 'running' AND (lease_owner IS NULL OR lease_owner <> ? OR lease_expires_at <= ?)`,
      [owner, now],
    )
    .map((r) => ({ run: runFromRow(r), by: r.lease_owner == null ? 'another process' : String(r.lease_owner) }));
  return stale.map(({ run, by }) =>
    finishRun(
      schedules,
      run,
      {
        status: 'interrupted',
        finishedAt: now,
        error: `The process running it (${ownerName(by)}) stopped before the run finished; it runs again as a retry.`,
      },
      opts,
    ),
  );
}

/** The owner's purpose without this runner's suffix: "agent-memory mcp (pid 123)". */
function ownerName(owner: string): string {
  return owner.replace(/ #[0-9a-f]+$/, '');
}
