// BM25 ranking for FTS4, computed in JS from `matchinfo(fts, 'pcnalx')` (sql.js has no FTS5).
//
// Blob layout (SQLite FTS4 docs, "matchinfo"), little-endian uint32 values in format order:
//   p  1 value        number of matchable phrases in the query
//   c  1 value        number of user columns in the FTS table
//   n  1 value        number of rows in the table
//   a  c values       average tokens per column over all rows (an integer)
//   l  c values       tokens per column in the current row
//   x  3*c*p values   for phrase i, column j at 3*(i*c + j):
//                     [hits in this row, hits in all rows, rows with at least one hit]
//
// score = Σ_phrase Σ_column w_col · idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))
// idf   = ln(1 + (N − df + 0.5) / (df + 0.5))   (Lucene's variant: never ≤ 0, so a term present
//         in most rows of a small project store still counts a little, unlike FTS5's clamp)
// df, tf, len and avglen are per column, since matchinfo reports them per column.
// coord: the score is then multiplied by (matched phrases / query phrases)^coord (Lucene's
//        classic coordination factor): a row matching 3 of 3 query words beats one that
//        matches a single rare word very often. 0 turns it off.
//
// SIGN: the SQL function `bm25(...)` returns the NEGATED score, like FTS5's bm25(): more
// negative = more relevant, so `ORDER BY bm25(matchinfo(t, 'pcnalx')) ASC` lists the best first
// and `-bm25(...)` is a positive relevance. The JS helper `bm25Relevance` returns the positive score.
import type { Database } from 'sql.js';
import type { Store } from '../store/store';

export const BM25_K1 = 1.2;
/**
 * Length normalization. 0.4 rather than the textbook 0.75: memories are short notes; on LoCoMo
 * recall rises from b 0.75 to 0.4 and stays flat below, and 0.4 is the least aggressive value on
 * that plateau (bench/RESULTS-design-notes.md).
 */
export const BM25_B = 0.4;
/**
 * Coordination exponent. On LoCoMo 1 raised full-text recall and hybrid recall at @1; 2 was no
 * better (bench/RESULTS-design-notes.md).
 */
export const BM25_COORD = 1;
export const MATCHINFO_FORMAT = 'pcnalx';

export interface Bm25Params {
  k1?: number;
  b?: number;
  coord?: number;
}

export interface PhraseColumnHits {
  /** Occurrences of the phrase in this column of the current row (tf). */
  hitsThisRow: number;
  /** Occurrences in this column over all rows. */
  hitsAllRows: number;
  /** Rows with at least one occurrence in this column (df). */
  rowsWithHits: number;
}

export interface MatchinfoPcnalx {
  phraseCount: number;
  columnCount: number;
  rowCount: number;
  avgLength: number[];
  length: number[];
  /** hits[phrase][column] */
  hits: PhraseColumnHits[][];
}

export function parseMatchinfoPcnalx(blob: Uint8Array): MatchinfoPcnalx {
  if (blob.byteLength < 12 || blob.byteLength % 4 !== 0)
    throw new Error(`bm25: matchinfo blob of ${blob.byteLength} bytes is not 'pcnalx'`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const u = (i: number): number => view.getUint32(i * 4, true);
  const p = u(0);
  const c = u(1);
  const expected = 3 + 2 * c + 3 * c * p;
  if (blob.byteLength / 4 !== expected) {
    throw new Error(`bm25: matchinfo has ${blob.byteLength / 4} values, 'pcnalx' with ${p} phrases × ${c} columns needs ${expected}`);
  }
  const avgLength: number[] = [];
  const length: number[] = [];
  for (let j = 0; j < c; j++) {
    avgLength.push(u(3 + j));
    length.push(u(3 + c + j));
  }
  const hits: PhraseColumnHits[][] = [];
  const x = 3 + 2 * c;
  for (let i = 0; i < p; i++) {
    const row: PhraseColumnHits[] = [];
    for (let j = 0; j < c; j++) {
      const k = x + 3 * (i * c + j);
      row.push({ hitsThisRow: u(k), hitsAllRows: u(k + 1), rowsWithHits: u(k + 2) });
    }
    hits.push(row);
  }
  return { phraseCount: p, columnCount: c, rowCount: u(2), avgLength, length, hits };
}

/**
 * Positive BM25 relevance (higher = better) of the current row. `weights[j]` scales column j
 * (default 1; 0 ignores the column).
 */
export function bm25Relevance(blob: Uint8Array, weights: readonly number[] = [], params: Bm25Params = {}): number {
  const k1 = params.k1 ?? BM25_K1;
  const b = params.b ?? BM25_B;
  const coord = params.coord ?? BM25_COORD;
  // Hot path (called once per matching row): read the uint32s in place, no parsed objects.
  const u = matchinfoWords(blob);
  const p = u[0]!;
  const c = u[1]!;
  const n = u[2]!;
  const x = 3 + 2 * c;
  let score = 0;
  let matched = 0; // bit i: phrase i matched in some weighted column (queries have ≤ 32 terms)
  for (let j = 0; j < c; j++) {
    const w = weights[j] ?? 1;
    if (w === 0) continue;
    const avg = u[3 + j]!;
    // matchinfo rounds the average; an all-empty column reports 0, so fall back to "average length".
    const lengthRatio = avg > 0 ? u[3 + c + j]! / avg : 1;
    const norm = k1 * (1 - b + b * lengthRatio);
    for (let i = 0; i < p; i++) {
      const k = x + 3 * (i * c + j);
      const tf = u[k]!;
      if (tf === 0) continue;
      matched |= 1 << i;
      const df = u[k + 2]!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += w * idf * ((tf * (k1 + 1)) / (tf + norm));
    }
  }
  return coordinated(score, matched, p, coord);
}

/** The matchinfo 'pcnalx' blob as uint32s (a view in place when aligned and little-endian); checks its length. */
function matchinfoWords(blob: Uint8Array): Uint32Array {
  if (blob.byteLength < 12 || blob.byteLength % 4 !== 0)
    throw new Error(`bm25: matchinfo blob of ${blob.byteLength} bytes is not 'pcnalx'`);
  const u =
    blob.byteOffset % 4 === 0 && LITTLE_ENDIAN
      ? new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
      : Uint32Array.from({ length: blob.byteLength / 4 }, (_, i) => new DataView(blob.buffer, blob.byteOffset).getUint32(i * 4, true));
  const p = u[0]!;
  const c = u[1]!;
  if (u.length !== 3 + 2 * c + 3 * c * p) {
    throw new Error(`bm25: matchinfo has ${u.length} values, 'pcnalx' with ${p} phrases × ${c} columns needs ${3 + 2 * c + 3 * c * p}`);
  }
  return u;
}

/** Coordination: the score scaled by (phrases matched / phrases)^coord when the query has 2 to 32 phrases. */
function coordinated(score: number, matched: number, p: number, coord: number): number {
  if (coord > 0 && p > 1 && p <= 32 && score > 0) return score * Math.pow(popcount(matched) / p, coord);
  return score;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export interface RegisterBm25Options extends Bm25Params {
  /** SQL function name. Default 'bm25'. */
  name?: string;
}

/**
 * The SQL function `bm25(matchinfo(fts, 'pcnalx') [, weight_col0, weight_col1, ...])`. Returns
 * the NEGATED score (see the file header). A NULL blob scores 0.
 */
export function bm25SqlFunction(options: Partial<Bm25Params> = {}): (...args: unknown[]) => number {
  const params: Bm25Params = { k1: options.k1 ?? BM25_K1, b: options.b ?? BM25_B, coord: options.coord ?? BM25_COORD };
  const weights: number[] = [];
  const fn = (...args: unknown[]): number => {
    const blob = args[0];
    if (blob === null || blob === undefined) return 0;
    if (!(blob instanceof Uint8Array)) throw new Error(`bm25: first argument must be matchinfo(fts, '${MATCHINFO_FORMAT}')`);
    // Called once per matching row: reuse one weights array instead of slice/map per call.
    weights.length = args.length - 1;
    for (let i = 1; i < args.length; i++) {
      const w = args[i];
      const v = typeof w === 'number' ? w : Number(w);
      if (!Number.isFinite(v)) throw new Error(`bm25: weight ${i} is not a number`);
      weights[i - 1] = v;
    }
    const score = bm25Relevance(blob, weights, params);
    return score === 0 ? 0 : -score; // avoid returning -0
  };
  // sql.js registers a function with arity `func.length`; -1 tells SQLite "any number of arguments".
  Object.defineProperty(fn, 'length', { value: -1 });
  return fn;
}

/** Registers `bm25` on a bare sql.js database (tests, tools). */
export function registerBm25(db: Database, options: RegisterBm25Options = {}): void {
  db.create_function(options.name ?? 'bm25', bm25SqlFunction(options));
}

const storesWithBm25 = new WeakSet<Store>();

/**
 * Registers `bm25` on a store's connection once. The store sits below search and knows no
 * ranking (ARCHITECTURE.md "Layers"): every query that ranks with bm25 calls this first.
 */
export function ensureBm25(store: Store): void {
  if (storesWithBm25.has(store)) return;
  store.registerFunction('bm25', bm25SqlFunction());
  storesWithBm25.add(store);
}
