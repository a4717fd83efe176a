/**
 * Exact cosine of a query with the STORED vectors of given memories, read in one SQL statement
 * per 500 rids from the `embeddings` table (the source of truth the index is a cache of).
 *
 * Why not the index: HnswIndex.getVector copies each vector out of WASM through embind at
 * ~0.1–0.25 ms, and the hybrid search asks for ~60 keyword-only candidates per query (6–15 ms at
 * 100k memories). One read of the blobs costs a fraction of that and needs no second in-memory
 * copy of every vector (100k × 512-d = 195 MB), which would break the RSS budget.
 *
 * Both blob formats are read (blob.ts; int8 codes are scored without dequantizing).
 * Only live memories (not soft-deleted) with a vector of the right size count, i.e. exactly
 * the set a synced index holds; a zero or non-finite vector (never indexed) is absent too.
 */
import type { Store } from '../store/store';
import { blobToVector, cosineWithBlob } from './blob';

export { cosineWithBlob } from './blob';

/*
 * CROSS JOIN pins `memories` (by rid) as the outer loop: left to itself SQLite walks every
 * embeddings row of the space and probes memories by embedding_hash (measured 211 ms for 60
 * rids at 10k memories instead of well under 1 ms).
 */

/** Statement size: a few prepared statements (IN-lists padded to powers of two) instead of hundreds. */
const CHUNK = 512;

export function storedSimilarities(store: Store, space: string, dim: number, query: Float32Array, rids: readonly number[]): Map<number, number> {
  if (query.length !== dim) throw new RangeError(`query vector has ${query.length} dimensions, the index has ${dim}`);
  const out = new Map<number, number>();
  let qq = 0;
  for (let i = 0; i < dim; i++) qq += query[i]! * query[i]!;
  if (!(qq > 0) || !Number.isFinite(qq)) return out;
  const qn = Math.sqrt(qq);
  forStoredBlobs(store, space, rids, (rid, blob) => {
    const sim = cosineWithBlob(query, qn, blob, dim);
    if (sim !== undefined) out.set(rid, sim);
  });
  return out;
}

/** The stored vectors of `rids` (same rules as storedSimilarities: live, right size, non-zero, finite). */
export function storedVectors(store: Store, space: string, dim: number, rids: readonly number[]): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  forStoredBlobs(store, space, rids, (rid, blob) => {
    const v = blobToVector(blob, dim);
    if (!v) return;
    let vv = 0;
    for (let i = 0; i < dim; i++) vv += v[i]! * v[i]!;
    if (vv > 0 && Number.isFinite(vv)) out.set(rid, v);
  });
  return out;
}

function forStoredBlobs(store: Store, space: string, rids: readonly number[], fn: (rid: number, blob: unknown) => void): void {
  const unique = [...new Set(rids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = padToPowerOfTwo(unique.slice(i, i + CHUNK));
    const rows = store.all<{ rid: number; vector: Uint8Array }>(
      `SELECT m.rid AS rid, e.vector AS vector
         FROM memories m CROSS JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash
        WHERE m.rid IN (${chunk.map(() => '?').join(', ')}) AND m.deleted_at IS NULL`,
      [space, ...chunk],
    );
    for (const r of rows) fn(Number(r.rid), r.vector);
  }
}

function padToPowerOfTwo(rids: number[]): number[] {
  let n = 1;
  while (n < rids.length) n *= 2;
  while (rids.length < n) rids.push(-1);
  return rids;
}
