/**
 * The database side of vector sync: the change sequence maintained by the triggers of
 * migrations/0002_vectors.sql (memories) and 0005_sessions.sql (session chunks), the rows changed
 * since a watermark, and the full set of live vectors of a space (for a rebuild). Reads only.
 * Every function reads the memories' vectors unless given another source (source.ts).
 */
import type { Store } from '../store/store';
import { blobLength, blobToVector } from './blob';
import { MEMORY_VECTORS, vectorJoin, type VectorScope, type VectorSource } from './source';

export interface VectorChange {
  rid: number;
  /** The row's current vector in the space, or undefined when it has none or is not live. */
  vector: Float32Array | undefined;
  /** Why there is no vector though a blob exists (dimension mismatch). */
  problem?: string;
}

/** Current value of the change sequence (one indexed single-row read). */
export function currentVectorSeq(store: Store, source: VectorSource = MEMORY_VECTORS): number {
  const row = store.get<{ seq: number }>(`SELECT seq FROM ${source.seqTable} WHERE id = 1`);
  if (!row) throw new Error(`${source.seqTable} is missing: the migration that creates it has not been applied`);
  return Number(row.seq);
}

/** How many rows changed after `since` (indexed count). */
export function pendingChanges(store: Store, since: number, source: VectorSource = MEMORY_VECTORS): number {
  return Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${source.dirtyTable} WHERE seq > ?`, [since])!.n);
}

/** Every row changed after `since`, with its current vector in `space` (ordered by change). */
export function changesSince(store: Store, { space, dim, source = MEMORY_VECTORS }: VectorScope, since: number): VectorChange[] {
  const rows = store.all<{ rid: number; vector: Uint8Array | null }>(
    `SELECT d.rid AS rid, e.${source.vectors.blob} AS vector
       FROM ${source.dirtyTable} d
       LEFT JOIN ${source.table} m ON m.rid = d.rid AND ${source.live}
       LEFT JOIN ${vectorJoin(source)}
      WHERE d.seq > ?
      ORDER BY d.seq`,
    [space, since],
  );
  return rows.map((r) => toChange(Number(r.rid), r.vector, dim, source));
}

function toChange(rid: number, blob: Uint8Array | null, dim: number, source: VectorSource): VectorChange {
  if (blob === null || blob === undefined) return { rid, vector: undefined };
  const vector = blobToVector(blob, dim);
  return vector
    ? { rid, vector }
    : {
        rid,
        vector: undefined,
        problem: `stored vector of ${source.noun} ${rid} is ${blob.byteLength} bytes, not a ${dim}-dimensional vector (${blobLength(dim, 'int8')} or ${blobLength(dim, 'float32')} bytes)`,
      };
}

/**
 * Live rows with a vector in `space` and rid > `afterRid`, by rid, at most `limit`: the
 * full set is read in such pages (a rebuild never holds every vector in JS at once).
 * CROSS JOIN keeps the rows (by rid) the outer loop. With `unchangedSince`, only rows not changed
 * after that position (a rebuild applies the others from changesSince, once).
 */
export function liveVectorsAfter(
  store: Store,
  { space, dim, source = MEMORY_VECTORS }: VectorScope,
  afterRid: number,
  limit: number,
  unchangedSince?: number,
): VectorChange[] {
  const unchanged =
    unchangedSince === undefined ? '' : ` AND NOT EXISTS (SELECT 1 FROM ${source.dirtyTable} d WHERE d.rid = m.rid AND d.seq > ?)`;
  const rows = store.all<{ rid: number; vector: Uint8Array }>(
    `SELECT m.rid AS rid, e.${source.vectors.blob} AS vector
       FROM ${source.table} m CROSS JOIN ${vectorJoin(source)}
      WHERE m.rid > ? AND ${source.live}${unchanged}
      ORDER BY m.rid
      LIMIT ?`,
    unchangedSince === undefined ? [space, afterRid, limit] : [space, afterRid, unchangedSince, limit],
  );
  return rows.map((r) => toChange(Number(r.rid), r.vector, dim, source));
}

/** How many live rows have a vector of the right size in `space` (what a complete index holds). */
export function liveVectorCount(store: Store, { space, dim, source = MEMORY_VECTORS }: VectorScope): number {
  const row = store.get<{ n: number }>(
    `SELECT count(*) AS n
       FROM ${source.table} m JOIN ${vectorJoin(source)}
      WHERE ${source.live} AND length(e.${source.vectors.blob}) IN (?, ?)`,
    [space, blobLength(dim, 'int8'), blobLength(dim, 'float32')],
  );
  return Number(row?.n ?? 0);
}
