/**
 * The database side of vector sync: the change sequence maintained by the triggers of
 * migrations/0002_vectors.sql, the rows changed since a watermark, and the full set of
 * live vectors of a space (for a rebuild). Reads only.
 */
import type { Store } from '../store/store';
import { blobLength, blobToVector } from './blob';

export interface VectorChange {
  rid: number;
  /** The memory's current vector in the space, or undefined when it has none or is not live. */
  vector: Float32Array | undefined;
  /** Why there is no vector though a blob exists (dimension mismatch). */
  problem?: string;
}

/** Current value of the change sequence (one indexed single-row read). */
export function currentVectorSeq(store: Store): number {
  const row = store.get<{ seq: number }>('SELECT seq FROM vector_seq WHERE id = 1');
  if (!row) throw new Error('vector_seq is missing: migration 0002_vectors has not been applied');
  return Number(row.seq);
}

/** How many memories changed after `since` (indexed count). */
export function pendingChanges(store: Store, since: number): number {
  return Number(store.get<{ n: number }>('SELECT count(*) AS n FROM vector_dirty WHERE seq > ?', [since])!.n);
}

/** Every memory changed after `since`, with its current vector in `space` (ordered by change). */
export function changesSince(store: Store, space: string, dim: number, since: number): VectorChange[] {
  const rows = store.all<{ rid: number; vector: Uint8Array | null }>(
    `SELECT d.rid AS rid, e.vector AS vector
       FROM vector_dirty d
       LEFT JOIN memories m ON m.rid = d.rid AND m.deleted_at IS NULL
       LEFT JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash
      WHERE d.seq > ?
      ORDER BY d.seq`,
    [space, since],
  );
  return rows.map((r) => toChange(Number(r.rid), r.vector, dim));
}

function toChange(rid: number, blob: Uint8Array | null, dim: number): VectorChange {
  if (blob === null || blob === undefined) return { rid, vector: undefined };
  const vector = blobToVector(blob, dim);
  return vector
    ? { rid, vector }
    : {
        rid,
        vector: undefined,
        problem: `stored vector of memory ${rid} is ${blob.byteLength} bytes, not a ${dim}-dimensional vector (${blobLength(dim, 'int8')} or ${blobLength(dim, 'float32')} bytes)`,
      };
}

/**
 * Live memories with a vector in `space` and rid > `afterRid`, by rid, at most `limit`: the
 * full set is read in such pages (a rebuild never holds every vector in JS at once).
 * CROSS JOIN keeps memories (by rid) the outer loop.
 */
export function liveVectorsAfter(store: Store, space: string, dim: number, afterRid: number, limit: number): VectorChange[] {
  const rows = store.all<{ rid: number; vector: Uint8Array }>(
    `SELECT m.rid AS rid, e.vector AS vector
       FROM memories m CROSS JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash
      WHERE m.rid > ? AND m.deleted_at IS NULL
      ORDER BY m.rid
      LIMIT ?`,
    [space, afterRid, limit],
  );
  return rows.map((r) => toChange(Number(r.rid), r.vector, dim));
}

/** How many live memories have a vector of the right size in `space` (what a complete index holds). */
export function liveVectorCount(store: Store, space: string, dim: number): number {
  const row = store.get<{ n: number }>(
    `SELECT count(*) AS n
       FROM memories m JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash
      WHERE m.deleted_at IS NULL AND length(e.vector) IN (?, ?)`,
    [space, blobLength(dim, 'int8'), blobLength(dim, 'float32')],
  );
  return Number(row?.n ?? 0);
}
