/**
 * Background dedup scanner (docs/consolidation.md): walks live memories in rid order, looks up each one's
 * nearest neighbours in the HNSW index (not an O(n²) pairwise pass) and records a pending
 * suggestion for every pair in the same project with similarity ≥ the threshold that has
 * none yet. Work is bounded per call (`budget` memories); the returned cursor resumes it.
 * The older memory (smaller rid) is `memory_a` (the survivor on accept).
 */
import type { Store } from '../store/store';
import type { VectorStore } from '../vectorstore/vectorStore';
import { projectNeighbours } from './neighbours';
import { suggestInTx, type Suggestion } from './records';

export interface ScanOptions {
  /** Memories examined in this call. Default 200. */
  budget?: number;
  /** Resume after this rid (from the previous call's nextCursor). Default 0. */
  cursor?: number;
  /** Neighbours looked at per memory. Default 5. */
  k?: number;
  /** Default memory.similarity_threshold (0.75). */
  threshold?: number;
  /** Only this project (default: all). */
  projectId?: string;
  now?: () => Date;
}

export interface ScanResult {
  scanned: number;
  created: Suggestion[];
  /** Pass as `cursor` to continue; 0 when the pass completed. */
  nextCursor: number;
  done: boolean;
}

export function scanForDuplicates(store: Store, vectors: VectorStore, opts: ScanOptions = {}): ScanResult {
  const budget = Math.max(1, opts.budget ?? 200);
  const k = Math.max(1, opts.k ?? 5);
  const threshold = opts.threshold ?? 0.75;
  const where = ['deleted_at IS NULL', 'rid > ?'];
  const params: (string | number)[] = [opts.cursor ?? 0];
  if (opts.projectId) {
    where.push('project_id = ?');
    params.push(opts.projectId);
  }
  const rows = store.all<{ rid: number; id: string; project_id: string }>(
    `SELECT rid, id, project_id FROM memories WHERE ${where.join(' AND ')} ORDER BY rid LIMIT ?`,
    [...params, budget],
  );
  const pairs: { a: string; b: string; similarity: number; project: string }[] = [];
  for (const row of rows) {
    const rid = Number(row.rid);
    const v = vectors.vectorOf(rid);
    if (!v) continue;
    const project = String(row.project_id);
    for (const h of projectNeighbours(store, vectors, v, { projectId: project, k, excludeRid: rid })) {
      if (h.similarity < threshold) break;
      const [a, b] = rid < h.rid ? [String(row.id), h.id] : [h.id, String(row.id)];
      pairs.push({ a, b, similarity: h.similarity, project });
    }
  }
  const created: Suggestion[] = [];
  if (pairs.length) {
    const iso = (opts.now ?? (() => new Date()))().toISOString();
    store.transaction((tx) => {
      for (const p of pairs) {
        const s = suggestInTx(tx, p, p.project, iso);
        if (s) created.push(s);
      }
    });
  }
  const done = rows.length < budget;
  return { scanned: rows.length, created, nextCursor: done ? 0 : Number(rows[rows.length - 1]!.rid), done };
}

/** A whole pass in budgeted steps, yielding to the event loop between them; stops early on abort. */
export async function runDedupScan(
  store: Store,
  vectors: VectorStore,
  opts: Omit<ScanOptions, 'cursor'> & { signal?: AbortSignal; onProgress?: (scanned: number) => void } = {},
): Promise<{ scanned: number; created: Suggestion[]; completed: boolean }> {
  let cursor = 0;
  let scanned = 0;
  const created: Suggestion[] = [];
  for (;;) {
    if (opts.signal?.aborted) return { scanned, created, completed: false };
    const r = scanForDuplicates(store, vectors, { ...opts, cursor });
    scanned += r.scanned;
    created.push(...r.created);
    opts.onProgress?.(scanned);
    if (r.done) return { scanned, created, completed: true };
    cursor = r.nextCursor;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
