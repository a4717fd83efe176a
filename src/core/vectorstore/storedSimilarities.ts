/**
 * Exact cosine of a query with the STORED vectors of given memories, read in one SQL statement
 * per 1,000 rids from the `embeddings` table (the source of truth the index is a cache of); or of
 * session chunks, from `chunks_vec`, given their source (source.ts).
 *
 * Why not the index: HnswIndex.getVector copies each vector out of WASM through embind, and the
 * hybrid search asks for ~60 keyword-only candidates per query (the cost:
 * bench/RESULTS-design-notes.md). One read of the blobs costs a fraction of that and needs no second in-memory
 * copy of every vector (100k × 512-d = 195 MB), which would break the RSS budget.
 *
 * Both blob formats are read (blob.ts; int8 codes are scored without dequantizing).
 * Only live memories (not soft-deleted) with a vector of the right size count, i.e. exactly
 * the set a synced index holds; a zero or non-finite vector (never indexed) is absent too.
 */
import type { Store } from '../store/store';
import { blobToVector, cosineWithBlob } from './blob';
import { MEMORY_VECTORS, vectorJoin, type VectorScope, type VectorSource } from './source';

export { cosineWithBlob } from './blob';

/*
 * One statement per chunk, one row out: the rids go in as a JSON array (json_each) and the
 * vectors come back as one comma-separated string of hex blobs. sql.js copies a BLOB column
 * into JS byte by byte and builds an object per row; a long string is decoded natively, and
 * Node's hex decoding is native too: faster than a per-row statement (bench/RESULTS-design-notes.md)
 * with the same similarities bit for bit (test/core/vectorstore/similarities.test.ts).
 * CROSS JOIN pins the order (json_each → memories by rid → embeddings by key): left to itself
 * SQLite may walk every embeddings row of the space and probe memories by embedding_hash,
 * hundreds of times slower.
 */
const sqlOf = (s: VectorSource): string =>
  `SELECT group_concat(m.rid) AS rids, group_concat(hex(e.${s.vectors.blob})) AS hexes
     FROM json_each(?) j
     CROSS JOIN ${s.table} m ON m.rid = j.value
     CROSS JOIN ${vectorJoin(s)}
    WHERE ${s.live}`;
const SQL = new Map<VectorSource, string>();

/** Rids per statement: bounds the one string a statement returns (≈ 1 KB of hex per 512-d vector). */
const CHUNK = 1000;

export function storedSimilarities(
  store: Store,
  { space, dim, source = MEMORY_VECTORS }: VectorScope,
  query: Float32Array,
  rids: readonly number[],
): Map<number, number> {
  if (query.length !== dim) throw new RangeError(`query vector has ${query.length} dimensions, the index has ${dim}`);
  const out = new Map<number, number>();
  let qq = 0;
  for (let i = 0; i < dim; i++) qq += query[i]! * query[i]!;
  if (!(qq > 0) || !Number.isFinite(qq)) return out;
  const qn = Math.sqrt(qq);
  forStoredBlobs(store, space, rids, source, (rid, blob) => {
    const sim = cosineWithBlob(query, qn, blob, dim);
    if (sim !== undefined) out.set(rid, sim);
  });
  return out;
}

/** The stored vectors of `rids` (same rules as storedSimilarities: live, right size, non-zero, finite). */
export function storedVectors(
  store: Store,
  { space, dim, source = MEMORY_VECTORS }: VectorScope,
  rids: readonly number[],
): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  forStoredBlobs(store, space, rids, source, (rid, blob) => {
    const v = blobToVector(blob, dim);
    if (!v) return;
    let vv = 0;
    for (let i = 0; i < dim; i++) vv += v[i]! * v[i]!;
    if (vv > 0 && Number.isFinite(vv)) out.set(rid, v);
  });
  return out;
}

function forStoredBlobs(
  store: Store,
  space: string,
  rids: readonly number[],
  source: VectorSource,
  fn: (rid: number, blob: Uint8Array) => void,
): void {
  const unique = [...new Set(rids)];
  let sql = SQL.get(source);
  if (sql === undefined) SQL.set(source, (sql = sqlOf(source)));
  for (let i = 0; i < unique.length; i += CHUNK) {
    const got = store.get<{ rids: string | null; hexes: string | null }>(sql, [JSON.stringify(unique.slice(i, i + CHUNK)), space]);
    if (!got?.rids) continue; // none stored
    const live = got.rids.split(',');
    const hexes = String(got.hexes).split(',');
    // hex() of a NULL vector is '' (kept in the list), so the two lists always line up.
    if (hexes.length !== live.length) throw new Error(`stored vectors: ${live.length} rids but ${hexes.length} vectors`);
    for (let j = 0; j < live.length; j++) fn(Number(live[j]), Buffer.from(hexes[j]!, 'hex'));
  }
}
