/**
 * Notices of runs (docs/schedules.md "Notices"): whether a run's outcome is shown (the schedule's
 * notification policy), which finished runs still wait for someone to see them, and claiming
 * one — a compare-and-set on `notified`, so of several windows exactly one shows it. What agents
 * see: reminders due soon and recent runs, for the project context.
 */
import type { Store } from '../store/store';
import type { Row } from '../store/storeTypes';
import { runFromRow, scheduleFromRow } from './rows';
import type { Notice, NotificationPolicy, Reminders, RunStatus } from './types';

export type { Notice, Reminders };

/** Whether a run that ended with `status` is shown under `policy`. */
export function wantsNotice(policy: NotificationPolicy, status: RunStatus): boolean {
  if (status === 'running') return false;
  if (policy === 'always') return true;
  if (policy === 'on_failure') return status === 'failed' || status === 'interrupted';
  return false;
}

/** Notices older than this are not shown any more (the run history keeps them). */
export const NOTICE_MAX_AGE_MS = 7 * 86_400_000;

/** Finished runs nobody was shown yet whose policy wants a notice, oldest first (at most `limit`, of the last 7 days). */
export function pendingNotices(store: Store, now: Date, limit = 20): Notice[] {
  const since = new Date(now.getTime() - NOTICE_MAX_AGE_MS).toISOString();
  const rows = store.all<Row>(
    `SELECT r.*, s.schedule_id AS s_id FROM schedule_runs r JOIN schedules s ON s.schedule_id = r.schedule_id
      WHERE r.notified = 0 AND r.status <> 'running' AND r.finished_at >= ?
        AND (s.notification_policy = 'always' OR (s.notification_policy = 'on_failure' AND r.status IN ('failed', 'interrupted')))
      ORDER BY r.finished_at LIMIT ?`,
    [since, limit],
  );
  return rows.map((r) => ({
    run: runFromRow(r),
    schedule: scheduleFromRow(store.get<Row>('SELECT * FROM schedules WHERE schedule_id = ?', [r.s_id])!),
  }));
}

/** Marks a run's notice as shown; true only for the first caller (the one that shows it). */
export function claimNotice(store: Store, runId: string): boolean {
  return store.transaction((tx) => {
    tx.run("UPDATE schedule_runs SET notified = 1 WHERE run_id = ? AND notified = 0 AND status <> 'running'", [runId]);
    return tx.changes() > 0;
  });
}

/** What an agent is told at the start of a session: reminders due soon and what recent runs said. */
export function reminders(store: Store, now: Date, opts: { withinMs?: number; recentMs?: number; limit?: number } = {}): Reminders {
  const limit = opts.limit ?? 10;
  const until = new Date(now.getTime() + (opts.withinMs ?? 86_400_000)).toISOString();
  const since = new Date(now.getTime() - (opts.recentMs ?? 3 * 86_400_000)).toISOString();
  const dueSoon = store
    .all<Row>("SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at LIMIT ?", [until, limit])
    .map(scheduleFromRow);
  const recent = store
    .all<Row>(`SELECT r.* FROM schedule_runs r WHERE r.status <> 'running' AND r.finished_at >= ? ORDER BY r.finished_at DESC LIMIT ?`, [
      since,
      limit,
    ])
    .map((r) => ({
      run: runFromRow(r),
      schedule: scheduleFromRow(store.get<Row>('SELECT * FROM schedules WHERE schedule_id = ?', [r.schedule_id])!),
    }));
  return { dueSoon, recent };
}
