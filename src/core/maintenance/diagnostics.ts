/**
 * Health diagnostics (docs/pipeline.md "Maintenance"): queue health (dead rate, stale
 * leases), index health (FTS rows vs memory rows), storage health (tombstone ratio), and a
 * composite score in [0, 1].
 * FTS note: this schema indexes every memory row, tombstones included (FTS4 external content
 * stays consistent that way), so the FTS row count is compared with ALL memory rows.
 */
import type { Store } from '../store/store';

export interface DiagnosticsReport {
  queue: { total: number; pending: number; leased: number; dead: number; deadRate: number; staleLeases: number };
  index: { ftsRows: number; memoryRows: number; activeMemories: number; consistent: boolean };
  storage: { tombstones: number; total: number; tombstoneRatio: number };
  score: number;
  at: string;
}

export function getDiagnostics(store: Store, opts: { leaseTimeoutMs: number; now: Date }): DiagnosticsReport {
  const n = (sql: string, p: (string | number)[] = []) => Number(store.get<{ n: number }>(sql, p)?.n ?? 0);
  const cutoff = new Date(opts.now.getTime() - opts.leaseTimeoutMs).toISOString();
  const total = n('SELECT count(*) AS n FROM memory_jobs');
  const dead = n(`SELECT count(*) AS n FROM memory_jobs WHERE status = 'dead'`);
  const queue = {
    total,
    pending: n(`SELECT count(*) AS n FROM memory_jobs WHERE status = 'pending'`),
    leased: n(`SELECT count(*) AS n FROM memory_jobs WHERE status = 'leased'`),
    dead,
    deadRate: total ? dead / total : 0,
    staleLeases: n(`SELECT count(*) AS n FROM memory_jobs WHERE status = 'leased' AND leased_at < ?`, [cutoff]),
  };
  const memoryRows = n('SELECT count(*) AS n FROM memories');
  const ftsRows = n('SELECT count(*) AS n FROM memories_fts_docsize');
  const tombstones = n('SELECT count(*) AS n FROM memories WHERE deleted_at IS NOT NULL');
  const index = { ftsRows, memoryRows, activeMemories: memoryRows - tombstones, consistent: ftsRows === memoryRows };
  const storage = { tombstones, total: memoryRows, tombstoneRatio: memoryRows ? tombstones / memoryRows : 0 };
  return { queue, index, storage, score: healthScore(queue, index, storage), at: opts.now.toISOString() };
}

/** 1 = healthy. Each problem takes away a share proportional to how bad it is. */
export function healthScore(q: DiagnosticsReport['queue'], i: DiagnosticsReport['index'], s: DiagnosticsReport['storage']): number {
  let score = 1;
  score -= 0.3 * Math.min(1, q.deadRate * 10); // 10 % dead jobs = the whole queue share
  score -= q.staleLeases > 0 ? 0.2 * Math.min(1, q.staleLeases / 5 + 0.2) : 0;
  if (!i.consistent) score -= 0.3 * Math.min(1, (Math.abs(i.ftsRows - i.memoryRows) / Math.max(1, i.memoryRows)) * 10 + 0.1);
  score -= 0.2 * Math.min(1, s.tombstoneRatio);
  return Math.max(0, Math.min(1, Math.round(score * 1000) / 1000));
}
