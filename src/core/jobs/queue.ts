/**
 * The job queue over memory_jobs (docs/pipeline.md "Jobs"): atomic leasing, completion,
 * failure with retry-or-dead, release without counting an attempt, the stale-lease reaper,
 * and dead-job requeue (maintenance). Every state change is one short transaction.
 */
import { redactDeep, redactSecrets } from '../secrets/detect';
import type { Store } from '../store/store';

export type JobStatus = 'pending' | 'leased' | 'completed' | 'dead' | 'cancelled';

export interface Job {
  id: string;
  jobType: string;
  memoryId: string | null;
  documentId: string | null;
  payload: Record<string, unknown>;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  leasedAt: string | null;
  leasedBy: string | null;
  lastError: string | null;
  result: unknown;
  createdAt: string;
}

/** A text or number column as a string; a column of another type (a blob) is a corrupt row. */
function sqlText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  throw new TypeError(`memory_jobs: expected a text column, got ${v === null ? 'null' : typeof v}`);
}

function nullableText(v: unknown): string | null {
  return v == null ? null : sqlText(v);
}

/** A JSON column, or `fallback` when it is empty or does not parse. */
function parseJsonColumn(v: unknown, fallback: unknown): unknown {
  if (v == null) return fallback;
  try {
    return JSON.parse(sqlText(v));
  } catch {
    return fallback;
  }
}

function toJob(r: Record<string, unknown>): Job {
  return {
    id: String(r.id),
    jobType: String(r.job_type),
    memoryId: nullableText(r.memory_id),
    documentId: nullableText(r.document_id),
    payload: parseJsonColumn(r.payload_json, {}) as Record<string, unknown>,
    status: String(r.status) as JobStatus,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    leasedAt: nullableText(r.leased_at),
    leasedBy: nullableText(r.leased_by),
    lastError: nullableText(r.last_error),
    result: parseJsonColumn(r.result_json, null),
    createdAt: String(r.created_at),
  };
}

export function getJob(store: Store, id: string): Job | undefined {
  const r = store.get('SELECT * FROM memory_jobs WHERE id = ?', [id]);
  return r ? toJob(r) : undefined;
}

export function listJobs(store: Store, filter: { status?: JobStatus; type?: string } = {}): Job[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.status) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.type) {
    where.push('job_type = ?');
    params.push(filter.type);
  }
  return store
    .all(`SELECT * FROM memory_jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid`, params)
    .map(toJob);
}

/**
 * Lease the oldest pending job of one of `types`: select and mark it leased (leased_at,
 * leased_by, attempts + 1) in ONE transaction, so no two workers can take the same job.
 * Jobs never tried come first: a job being retried (its model call timed out, say) waits
 * behind them, so one bad job cannot hold up the queue behind it while it spends its retries.
 */
export function leaseJob(store: Store, types: readonly string[], workerId: string, now: Date): Job | undefined {
  if (!types.length) return undefined;
  const iso = now.toISOString();
  const oldest = (retried: boolean) =>
    `SELECT id FROM memory_jobs
     WHERE status = 'pending' AND job_type IN (${types.map(() => '?').join(', ')})
       AND (run_after IS NULL OR run_after <= ?)${retried ? '' : ' AND attempts = 0'}
     ORDER BY created_at, rowid LIMIT 1`;
  return store.transaction((tx) => {
    const row = tx.get<{ id: string }>(oldest(false), [...types, iso]) ?? tx.get<{ id: string }>(oldest(true), [...types, iso]);
    if (!row) return undefined;
    tx.run(
      `UPDATE memory_jobs SET status = 'leased', leased_at = ?, leased_by = ?, attempts = attempts + 1, updated_at = ?
       WHERE id = ? AND status = 'pending'`,
      [iso, workerId, iso, row.id],
    );
    if (tx.changes() !== 1) return undefined;
    return toJob(tx.get('SELECT * FROM memory_jobs WHERE id = ?', [row.id])!);
  });
}

/**
 * Renew a lease still held by `workerId` (a long job must not look stale to the reaper).
 * Returns false when the lease was lost.
 */
export function renewLease(store: Store, id: string, workerId: string, now: Date): boolean {
  const iso = now.toISOString();
  return store.transaction((tx) => {
    tx.run(`UPDATE memory_jobs SET leased_at = ?, updated_at = ? WHERE id = ? AND status = 'leased' AND leased_by = ?`, [
      iso,
      iso,
      id,
      workerId,
    ]);
    return tx.changes() === 1;
  });
}

/** Mark a leased job completed with its result payload (warnings, counts). */
export function completeJob(store: Store, id: string, result: unknown, now: Date): void {
  const iso = now.toISOString();
  store.transaction((tx) =>
    tx.run(
      `UPDATE memory_jobs SET status = 'completed', completed_at = ?, result_json = ?, leased_at = NULL, leased_by = NULL, updated_at = ?
       WHERE id = ? AND status = 'leased'`,
      // A job's result and error are diagnostics: never a place for a credential (docs/secrets.md).
      [iso, JSON.stringify(redactDeep(result ?? null).value), iso, id],
    ),
  );
}

/**
 * A leased job failed. Its attempt was counted at lease time: at `maxAttempts` it becomes
 * `dead` (kept for audit and requeue), otherwise it goes back to pending.
 */
export function failJob(store: Store, id: string, error: string, maxAttempts: number, now: Date): 'pending' | 'dead' | 'gone' {
  const iso = now.toISOString();
  return store.transaction((tx) => {
    const row = tx.get<{ attempts: number }>(`SELECT attempts FROM memory_jobs WHERE id = ? AND status = 'leased'`, [id]);
    if (!row) return 'gone';
    const dead = Number(row.attempts) >= maxAttempts;
    tx.run(
      `UPDATE memory_jobs SET status = ?, last_error = ?, failed_at = ?, leased_at = NULL, leased_by = NULL, updated_at = ?
       WHERE id = ?`,
      [dead ? 'dead' : 'pending', redactSecrets(error).text.slice(0, 2000), iso, iso, id],
    );
    return dead ? 'dead' : 'pending';
  });
}

/**
 * Give a leased job back without counting the attempt: the failure was not the job's fault
 * (LLM unreachable, clean shutdown). Nothing is lost and the retry budget is kept.
 */
export function releaseJob(store: Store, id: string, note: string | null, now: Date): void {
  const iso = now.toISOString();
  store.transaction((tx) =>
    tx.run(
      `UPDATE memory_jobs SET status = 'pending', attempts = max(attempts - 1, 0), last_error = coalesce(?, last_error),
         leased_at = NULL, leased_by = NULL, updated_at = ?
       WHERE id = ? AND status = 'leased'`,
      [note === null ? null : redactSecrets(note).text, iso, id],
    ),
  );
}

/** `AND job_type IN (…)` for an optional list of types (other workers' jobs are left alone). */
function typeFilter(types: readonly string[] | undefined): { sql: string; params: string[] } {
  if (!types) return { sql: '', params: [] };
  if (!types.length) return { sql: ' AND 0', params: [] };
  return { sql: ` AND job_type IN (${types.map(() => '?').join(', ')})`, params: [...types] };
}

/**
 * Stale-lease reaper: leased longer than `leaseTimeoutMs` → pending again. Limited to
 * `types` when given (each worker reaps its own job types). Returns how many.
 */
export function reapStaleLeases(store: Store, leaseTimeoutMs: number, now: Date, types?: readonly string[]): number {
  const cutoff = new Date(now.getTime() - leaseTimeoutMs).toISOString();
  const iso = now.toISOString();
  const f = typeFilter(types);
  return store.transaction((tx) => {
    tx.run(
      `UPDATE memory_jobs SET status = 'pending', leased_at = NULL, leased_by = NULL, updated_at = ?,
         last_error = coalesce(last_error, 'lease expired')
       WHERE status = 'leased' AND leased_at < ?${f.sql}`,
      [iso, cutoff, ...f.params],
    );
    return tx.changes();
  });
}

/**
 * Leases of `types` held by anyone but `workerId` → pending. Only safe when this process owns
 * the store (the store lock guarantees it) and no other worker of the same types runs in it:
 * such leases were left by a process that died.
 */
export function recoverOrphanedLeases(store: Store, workerId: string, now: Date, types?: readonly string[]): number {
  const iso = now.toISOString();
  const f = typeFilter(types);
  return store.transaction((tx) => {
    tx.run(
      `UPDATE memory_jobs SET status = 'pending', leased_at = NULL, leased_by = NULL, updated_at = ?,
         last_error = coalesce(last_error, 'worker stopped while holding the lease')
       WHERE status = 'leased' AND (leased_by IS NULL OR leased_by <> ?)${f.sql}`,
      [iso, workerId, ...f.params],
    );
    return tx.changes();
  });
}

/** Dead jobs → pending with a fresh attempt budget (maintenance "requeueDeadJobs"). */
export function requeueDeadJobs(store: Store, limit: number, now: Date): number {
  const iso = now.toISOString();
  return store.transaction((tx) => {
    tx.run(
      `UPDATE memory_jobs SET status = 'pending', attempts = 0, failed_at = NULL, updated_at = ?
       WHERE id IN (SELECT id FROM memory_jobs WHERE status = 'dead' ORDER BY failed_at LIMIT ?)`,
      [iso, limit],
    );
    return tx.changes();
  });
}

export function jobCounts(store: Store): Record<JobStatus, number> {
  const out: Record<JobStatus, number> = { pending: 0, leased: 0, completed: 0, dead: 0, cancelled: 0 };
  for (const r of store.all<{ status: JobStatus; n: number }>('SELECT status, count(*) AS n FROM memory_jobs GROUP BY status')) {
    out[r.status] = Number(r.n);
  }
  return out;
}
