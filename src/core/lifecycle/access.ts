/**
 * Access bookkeeping (docs/lifecycle.md "Access"): a deliberate use of a memory — a person opened
 * it, an answer cited it, it was handed to an agent — gives access_count + 1 and
 * last_accessed_at = now; a short-term memory's expiry moves out by ttl_extend_factor × its
 * original TTL (ttl_seconds), and at promote_access_count accesses it becomes permanent (TTL
 * removed, a 'promoted' history row). At most one access per memory per hour counts
 * (last_accessed_at is the persisted throttle, so a restart does not reset it).
 *
 * The write is deferred and batched: `record` only queues rids; `flush` writes them in one
 * durable transaction. The engine's scheduler calls flush (src/engine/worker/scheduler.ts); this class
 * keeps no timer of its own. Callers decide what counts (search's recordAccess param): nothing
 * here guesses.
 */
import type { Store, Tx } from '../store/store';
import { writeHistory } from '../memory/history';
import { errorMessage } from '../util/errors';
import { resolveLifecycle, type LifecycleSettings } from './settings';

/** Accesses of one memory closer together than this count once. */
export const ACCESS_THROTTLE_MS = 60 * 60 * 1000;

export interface AccessTrackerOptions {
  lifecycle?: Partial<LifecycleSettings>;
  now?: () => Date;
  /** Flush at once when this many distinct memories are queued. Default 1000. */
  maxPending?: number;
  /** A failed flush is reported here (it never reaches the searcher). */
  onError?: (message: string) => void;
}

export interface AccessFlushResult {
  /** Memories whose counters were bumped. */
  bumped: number;
  /** Ids promoted to permanent by this flush. */
  promoted: string[];
}

interface AccessRow {
  rid: number;
  id: string;
  access_count: number;
  last_accessed_at: string | null;
  ttl_seconds: number | null;
  expires_at: string | null;
  deleted_at: string | null;
}

export class AccessTracker {
  private readonly lifecycle: LifecycleSettings;
  private readonly now: () => Date;
  /** rids accessed since the last flush. */
  private queue = new Set<number>();
  private closed = false;
  readonly errors: string[] = [];

  constructor(
    private readonly store: Store,
    private readonly opts: AccessTrackerOptions = {},
  ) {
    this.lifecycle = resolveLifecycle(opts.lifecycle);
    this.now = opts.now ?? (() => new Date());
  }

  get pending(): number {
    return this.queue.size;
  }

  /** Queue one access for each rid. Never throws, never writes now (unless the queue is full). */
  record(rids: Iterable<number>): void {
    if (this.closed) return;
    for (const rid of rids) if (Number.isInteger(rid)) this.queue.add(rid);
    if (this.queue.size >= (this.opts.maxPending ?? 1000)) this.flushQuietly();
  }

  /** `flush` for a timer: a failure is reported (onError, errors), never thrown. */
  flushQuietly(): void {
    try {
      this.flush();
    } catch (e) {
      const msg = `access bookkeeping failed: ${errorMessage(e)}`;
      this.errors.push(msg);
      this.opts.onError?.(msg);
    }
  }

  /** Write everything queued in one durable transaction. */
  flush(): AccessFlushResult {
    const batch = this.queue;
    this.queue = new Set();
    if (batch.size === 0) return { bumped: 0, promoted: [] };
    const now = this.now();
    try {
      return this.store.transaction((tx) => applyAccesses(tx, batch, now, this.lifecycle));
    } catch (e) {
      // Keep them for the next try (e.g. the store was busy snapshotting).
      for (const rid of batch) this.queue.add(rid);
      throw e;
    }
  }

  /** Flush what is queued and stop accepting more. */
  close(): AccessFlushResult {
    const r = this.flush();
    this.closed = true;
    return r;
  }
}

/** Whether an access at `now` counts: the memory's last counted access is an hour or more ago. */
function counts(lastAccessedAt: string | null, now: Date): boolean {
  return (
    lastAccessedAt === null || now.getTime() - Date.parse(lastAccessedAt) >= ACCESS_THROTTLE_MS || Number.isNaN(Date.parse(lastAccessedAt))
  );
}

/** The bookkeeping itself, inside a caller's transaction: one access per rid, at most one per memory per hour. */
export function applyAccesses(tx: Tx, rids: Iterable<number>, now: Date, lifecycle: LifecycleSettings): AccessFlushResult {
  const iso = now.toISOString();
  const promoted: string[] = [];
  let bumped = 0;
  for (const rid of rids) {
    const row = tx.get<AccessRow>(
      'SELECT rid, id, access_count, last_accessed_at, ttl_seconds, expires_at, deleted_at FROM memories WHERE rid = ?',
      [rid],
    );
    if (!row || row.deleted_at !== null || !counts(row.last_accessed_at, now)) continue;
    const count = Number(row.access_count) + 1;
    bumped++;
    if (row.ttl_seconds === null) {
      tx.run('UPDATE memories SET access_count = ?, last_accessed_at = ? WHERE rid = ?', [count, iso, rid]);
      continue;
    }
    if (count >= lifecycle.promoteAccessCount) {
      tx.run('UPDATE memories SET access_count = ?, last_accessed_at = ?, ttl_seconds = NULL, expires_at = NULL WHERE rid = ?', [
        count,
        iso,
        rid,
      ]);
      writeHistory(tx, {
        memoryId: row.id,
        event: 'promoted',
        changedBy: 'lifecycle',
        reason: `accessed ${count} times`,
        metadata: { accessCount: count, ttlSeconds: Number(row.ttl_seconds), expiresAt: row.expires_at },
        createdAt: iso,
      });
      promoted.push(row.id);
      continue;
    }
    // Extend from the current expiry (never from "now": an access must not shorten a TTL).
    const base = row.expires_at ? Date.parse(row.expires_at) : now.getTime();
    const extendMs = Number(row.ttl_seconds) * 1000 * lifecycle.ttlExtendFactor;
    const expires = new Date(Math.max(base, now.getTime()) + extendMs).toISOString();
    tx.run('UPDATE memories SET access_count = ?, last_accessed_at = ?, expires_at = ? WHERE rid = ?', [count, iso, expires, rid]);
  }
  return { bumped, promoted };
}
