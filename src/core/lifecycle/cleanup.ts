/**
 * Expiry (docs/lifecycle.md "Cleanup"): expired memories are SOFT-deleted (tombstone
 * with deleted_by 'lifecycle', reason 'expired', retention_status 'expired', a history row
 * holding the full prior record), in batches of short transactions.
 *
 * Why soft delete and not purge: every other removal in this store is a tombstone with history,
 * so an expiry can be inspected and undone (MemoryService.restore) like any delete; readers
 * already hide expired rows before the sweep (visibility.ts), so the sweep changes no result.
 * Purging old tombstones is a separate retention concern.
 * The caller removes the returned rids from the vector index (the vector store owns it). The
 * engine's scheduler runs the sweep every memory.cleanup_interval (src/engine/worker/scheduler.ts).
 */
import type { Store } from '../store/store';
import type { Row } from '../store/store';
import { writeHistory } from '../memory/history';
import { rowToRecord } from '../memory/rows';
import { cancelMemoryJobs } from '../jobs/enqueue';

export interface CleanupOptions {
  now?: Date;
  /** Memories per transaction. Default 200. */
  batchSize?: number;
  /** Stop after this many batches (keeps one sweep short). Default unlimited. */
  maxBatches?: number;
  /** Only this project (default: every project in the store). */
  projectId?: string;
}

export interface CleanupResult {
  expired: number;
  ids: string[];
  rids: number[];
  batches: number;
  /** More expired memories remain (maxBatches reached). */
  more: boolean;
}

export function cleanupExpired(store: Store, opts: CleanupOptions = {}): CleanupResult {
  const now = opts.now ?? new Date();
  const iso = now.toISOString();
  const batchSize = Math.max(1, Math.min(Math.floor(opts.batchSize ?? 200), 5000));
  const maxBatches = opts.maxBatches ?? Infinity;
  const result: CleanupResult = { expired: 0, ids: [], rids: [], batches: 0, more: false };
  const where = `deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?${opts.projectId !== undefined ? ' AND project_id = ?' : ''}`;
  const params = opts.projectId !== undefined ? [iso, opts.projectId] : [iso];
  for (;;) {
    if (result.batches >= maxBatches) {
      result.more = store.get(`SELECT 1 AS x FROM memories WHERE ${where} LIMIT 1`, params) !== undefined;
      break;
    }
    const done = store.transaction((tx) => {
      const rows = tx.all<Row>(`SELECT * FROM memories WHERE ${where} ORDER BY expires_at LIMIT ?`, [...params, batchSize]);
      for (const r of rows) {
        const before = rowToRecord(r);
        const version = before.version + 1;
        tx.run(
          `UPDATE memories SET deleted_at = ?, deleted_by = 'lifecycle', delete_reason = 'expired', retention_status = 'expired', version = ?, updated_at = ? WHERE rid = ?`,
          [iso, version, iso, before.rid],
        );
        cancelMemoryJobs(tx, before.id, iso);
        writeHistory(tx, {
          memoryId: before.id,
          event: 'expired',
          oldContent: before.content,
          oldJson: before,
          newJson: {
            ...before,
            deletedAt: iso,
            deletedBy: 'lifecycle',
            deleteReason: 'expired',
            retentionStatus: 'expired',
            version,
            updatedAt: iso,
          },
          changedBy: 'lifecycle',
          reason: `TTL reached at ${before.expiresAt}`,
          createdAt: iso,
        });
        result.ids.push(before.id);
        result.rids.push(before.rid);
      }
      return rows.length;
    });
    if (done === 0) break;
    result.batches++;
    result.expired += done;
    if (done < batchSize) break;
  }
  return result;
}
