/**
 * Retention sweep (docs/pipeline.md "Retention"): eight steps in a fixed order for referential
 * safety — graph links, embeddings, tombstones, history, completed jobs, dead jobs, then the
 * change feed's events and finished webhook deliveries (kept as long as history,
 * docs/changes.md) — each in its own short transaction and limited to 500 rows; the rest waits
 * for the next sweep.
 */
import type { Store } from '../store/store';
import { removeMemoryGraph } from '../graph/gc';
import { purgeOldEvents, purgeFinishedDeliveries } from '../changes/retention';

export const RETENTION_BATCH = 500;

export interface RetentionWindows {
  tombstoneRetentionMs: number;
  historyRetentionMs: number;
  completedJobRetentionMs: number;
  deadJobRetentionMs: number;
}

export const RETENTION_STEPS = [
  'graphLinks',
  'embeddings',
  'tombstones',
  'history',
  'completedJobs',
  'deadJobs',
  'events',
  'deliveries',
] as const;
export type RetentionStep = (typeof RETENTION_STEPS)[number];

export interface RetentionReport {
  /** Rows removed per step, in execution order. */
  steps: { step: RetentionStep; removed: number }[];
  /** True when a step hit the batch limit (more is left for the next sweep). */
  more: boolean;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();

/** Soft-deleted memories past the tombstone window (the same set for steps 1–3). */
function expiredIds(store: Store, cutoff: string, batch: number): string[] {
  return store
    .all<{ id: string }>('SELECT id FROM memories WHERE deleted_at IS NOT NULL AND deleted_at < ? ORDER BY deleted_at LIMIT ?', [
      cutoff,
      batch,
    ])
    .map((r) => String(r.id));
}

export function runRetentionSweep(store: Store, w: RetentionWindows, now: Date, batch = RETENTION_BATCH): RetentionReport {
  const iso = now.toISOString();
  const tombCutoff = before(now, w.tombstoneRetentionMs);
  const steps: RetentionReport['steps'] = [];
  let more = false;
  const record = (step: RetentionStep, removed: number) => {
    steps.push({ step, removed });
    if (removed >= batch) more = true;
  };

  // 1. Graph links of expired tombstones; orphaned entities and their relations go too.
  record(
    'graphLinks',
    store.transaction((tx) => {
      const ids = tx.all<{ memory_id: string }>(
        `SELECT DISTINCT mm.memory_id FROM memory_entity_mentions mm JOIN memories m ON m.id = mm.memory_id
       WHERE m.deleted_at IS NOT NULL AND m.deleted_at < ? LIMIT ?`,
        [tombCutoff, batch],
      );
      let n = 0;
      for (const { memory_id } of ids) {
        n += Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM memory_entity_mentions WHERE memory_id = ?', [memory_id])!.n);
        removeMemoryGraph(tx, memory_id, iso);
      }
      return n;
    }),
  );

  // 2. Their embeddings, unless another memory still uses the same vector.
  record(
    'embeddings',
    store.transaction((tx) => {
      const ids = expiredIds(store, tombCutoff, batch);
      let n = 0;
      for (const id of ids) {
        const h = tx.get<{ embedding_hash: string | null }>('SELECT embedding_hash FROM memories WHERE id = ?', [id])?.embedding_hash;
        if (!h) continue;
        const shared = tx.get(
          'SELECT 1 AS x FROM memories WHERE embedding_hash = ? AND id <> ? AND NOT (deleted_at IS NOT NULL AND deleted_at < ?) LIMIT 1',
          [h, id, tombCutoff],
        );
        if (shared) continue;
        tx.run('DELETE FROM embeddings WHERE text_hash = ?', [h]);
        n += tx.changes();
      }
      return n;
    }),
  );

  // 3. The tombstoned rows (FTS cleanup by trigger; tags, links cascade).
  record(
    'tombstones',
    store.transaction((tx) => {
      const ids = expiredIds(store, tombCutoff, batch);
      let n = 0;
      for (const id of ids) {
        tx.run('DELETE FROM document_memories WHERE memory_id = ?', [id]);
        tx.run('DELETE FROM memories WHERE id = ?', [id]);
        n += tx.changes();
      }
      return n;
    }),
  );

  // 4–6. Old history, completed jobs, dead jobs.
  const purge = (sql: string, cutoff: string) =>
    store.transaction((tx) => {
      tx.run(sql, [cutoff, batch]);
      return tx.changes();
    });
  record(
    'history',
    purge(
      'DELETE FROM memory_history WHERE id IN (SELECT id FROM memory_history WHERE created_at < ? ORDER BY created_at LIMIT ?)',
      before(now, w.historyRetentionMs),
    ),
  );
  record(
    'completedJobs',
    purge(
      `DELETE FROM memory_jobs WHERE id IN (SELECT id FROM memory_jobs WHERE status = 'completed' AND completed_at < ? ORDER BY completed_at LIMIT ?)`,
      before(now, w.completedJobRetentionMs),
    ),
  );
  record(
    'deadJobs',
    purge(
      `DELETE FROM memory_jobs WHERE id IN (SELECT id FROM memory_jobs WHERE status = 'dead' AND failed_at < ? ORDER BY failed_at LIMIT ?)`,
      before(now, w.deadJobRetentionMs),
    ),
  );
  // 7–8. The change feed's events and finished webhook deliveries, as long as history is kept.
  const historyCutoff = before(now, w.historyRetentionMs);
  record(
    'events',
    store.transaction((tx) => purgeOldEvents(tx, historyCutoff, batch)),
  );
  record(
    'deliveries',
    store.transaction((tx) => purgeFinishedDeliveries(tx, historyCutoff, batch)),
  );
  return { steps, more };
}
