/**
 * Access bookkeeping on read (docs/lifecycle.md): every memory a search returns gets
 * access_count + 1 and last_accessed_at = now; a short-term memory's expiry moves out by
 * ttl_extend_factor × its original TTL (ttl_seconds), and at promote_access_count accesses it
 * becomes permanent (TTL removed, a 'promoted' history row).
 *
 * The write is deferred and batched: `record` only queues rids; one durable transaction per
 * flush, scheduled after the current turn of the event loop, so a search never waits on it
 * (docs/recall.md "Access bookkeeping").
 */
import type { Store, Tx } from '../store/store';
import { writeHistory } from '../memory/history';
import { errorMessage } from '../util/errors';
import { resolveLifecycle, type LifecycleSettings } from './settings';

export interface AccessTrackerOptions {
  lifecycle?: Partial<LifecycleSettings>;
  now?: () => Date;
  /** Wait this long before flushing, to batch bursts of searches. 0 = next event-loop turn. Default 0. */
  delayMs?: number;
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
  ttl_seconds: number | null;
  expires_at: string | null;
  deleted_at: string | null;
}

export class AccessTracker {
  private readonly lifecycle: LifecycleSettings;
  private readonly now: () => Date;
  /** rid → accesses since the last flush. */
  private queue = new Map<number, number>();
  private timer: { cancel(): void } | undefined;
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

  /** Queue one access for each rid (a search's results). Never throws, never writes now. */
  record(rids: Iterable<number>): void {
    if (this.closed) return;
    for (const rid of rids) {
      if (!Number.isInteger(rid)) continue;
      this.queue.set(rid, (this.queue.get(rid) ?? 0) + 1);
    }
    if (this.queue.size === 0) return;
    if (this.queue.size >= (this.opts.maxPending ?? 1000)) {
      this.flushQuietly();
      return;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const delay = this.opts.delayMs ?? 0;
    const run = () => {
      this.timer = undefined;
      this.flushQuietly();
    };
    if (delay > 0) {
      const t = setTimeout(run, delay);
      t.unref();
      this.timer = { cancel: () => clearTimeout(t) };
    } else {
      const t = setImmediate(run);
      this.timer = { cancel: () => clearImmediate(t) };
    }
  }

  private flushQuietly(): void {
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
    this.timer?.cancel();
    this.timer = undefined;
    const batch = this.queue;
    this.queue = new Map();
    if (batch.size === 0) return { bumped: 0, promoted: [] };
    const now = this.now();
    try {
      return this.store.transaction((tx) => applyAccesses(tx, batch, now, this.lifecycle));
    } catch (e) {
      // Keep the counts for the next try (e.g. the store was busy snapshotting).
      for (const [rid, n] of batch) this.queue.set(rid, (this.queue.get(rid) ?? 0) + n);
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

/** The bookkeeping itself, inside a caller's transaction. */
export function applyAccesses(tx: Tx, accesses: Map<number, number>, now: Date, lifecycle: LifecycleSettings): AccessFlushResult {
  const iso = now.toISOString();
  const promoted: string[] = [];
  let bumped = 0;
  for (const [rid, n] of accesses) {
    const row = tx.get<AccessRow>('SELECT rid, id, access_count, ttl_seconds, expires_at, deleted_at FROM memories WHERE rid = ?', [rid]);
    if (!row || row.deleted_at !== null) continue;
    const count = Number(row.access_count) + n;
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
    const extendMs = Number(row.ttl_seconds) * 1000 * lifecycle.ttlExtendFactor * n;
    const expires = new Date(Math.max(base, now.getTime()) + extendMs).toISOString();
    tx.run('UPDATE memories SET access_count = ?, last_accessed_at = ?, expires_at = ? WHERE rid = ?', [count, iso, expires, rid]);
  }
  return { bumped, promoted };
}
