/**
 * The full-text leg of the chunk query (chunkSearch.ts) ranked exactly without scoring every
 * matching chunk: memory recall's pruned ranking (src/core/search/fullTextRank.ts explains the
 * bound and why it is exact) over `chunks_fts`, its one column and the chunk order.
 *
 * Why: a common word matches thousands of chunks at 100k (bench/RESULTS-sessions.md), and ranking
 * a row through `bm25(matchinfo(chunks_fts, 'pcnalx'))` costs a JS call and a `%_docsize` look-up
 * per row. Here every matching row comes back in one statement with its hits per phrase
 * (`matchinfo 'y'`, no JS call per row); a row's score is bounded from above by the smallest
 * length its hits allow, and only rows whose bound can still reach the k-th score are scored
 * (lengths from `%_docsize`) and checked against the filters (session, tags), by batches.
 *
 * The answer is the one-pass query's: the best `k` chunks under the filters by BM25, ties to the
 * larger `sequence_end`, then the larger rid, with the same doubles as `bm25()` gives
 * (test/core/sessions/chunkTextRank.test.ts compares them on a seeded corpus). Null when the
 * rows are not in a form this code knows: the caller ranks the straightforward way.
 */
import type { Store } from '../store/store';
import { BM25_B, BM25_COORD, BM25_K1 } from '../search/bm25';
import { parseIntList, parseRows, readHexVarints, readVarints } from '../search/fullTextRank';

/** A ranked chunk: its rid, `sequence_end` and positive BM25 (as `-bm25()`). */
export interface ChunkTextHit {
  rid: number;
  seq: number;
  bm25: number;
}

/** SQL filters over `chunks c` (chunkSearch.ts whereOf). */
export interface ChunkWhere {
  sql: string;
  params: (string | number)[];
}

const ROWS_SQL =
  "SELECT group_concat(docid) AS ids, group_concat(h, '') AS hits FROM (SELECT docid, hex(matchinfo(chunks_fts, 'y')) AS h " +
  'FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT -1)';
const STAT_SQL = 'SELECT value FROM chunks_fts_stat WHERE id = 0';
const SIZES_SQL =
  "SELECT group_concat(docid) AS rids, group_concat(hex(size), ',') AS sizes FROM chunks_fts_docsize WHERE docid IN (SELECT value FROM json_each(?))";
/** The column's weight: the chunk query calls bm25() without weights. */
const W = 1;
/** Rows per look-up statement. */
const BATCH_MAX = 1024;

/**
 * The best `k` chunks matching `expr` (the OR of `phrases` terms) under `where`; null when this
 * path does not apply (then rank with bm25() in SQL).
 */
export function rankChunkText(store: Store, expr: string, phrases: number, where: ChunkWhere, k: number): ChunkTextHit[] | null {
  if (phrases < 1 || phrases > 32 || k < 1) return null;
  const got = store.get<{ ids: string | null; hits: string | null }>(ROWS_SQL, [expr]);
  const parsed = parseRows(got?.ids ?? '', got?.hits ?? '', phrases);
  if (!parsed) return null;
  if (parsed.rows === 0) return [];
  const stats = chunkStats(store);
  if (!stats) return null;
  return new Ranking(store, where, { phrases, docids: parsed.docids, tf: parsed.tf }, stats).topK(k);
}

interface Stats {
  n: number;
  avg: number;
}

/** N and the average length as matchinfo 'n' and 'a' give them (from `%_stat`). */
function chunkStats(store: Store): Stats | null {
  const stat = store.get<{ value: unknown }>(STAT_SQL)?.value;
  if (!(stat instanceof Uint8Array)) return null;
  const totals = readVarints(stat, 2);
  if (!totals || !(totals[0]! > 0)) return null;
  const nDoc = totals[0]!;
  return { n: nDoc % 2 ** 32, avg: Math.floor(((totals[1]! % 2 ** 32) + Math.floor(nDoc / 2)) / nDoc) % 2 ** 32 };
}

class Ranking {
  private readonly rows: number;
  private readonly idf: Float64Array;
  private readonly bounds: Float64Array;
  /** Exact score per row; NaN until its length is read. */
  private readonly exact: Float64Array;
  /** 0 unknown, 1 passes the filters, 2 filtered out. */
  private readonly verdict: Uint8Array;
  private readonly seq = new Map<number, number>();

  private readonly p: number;
  private readonly docids: Float64Array;
  private readonly tf: Uint32Array;

  constructor(
    private readonly store: Store,
    private readonly where: ChunkWhere,
    matched: { phrases: number; docids: Float64Array; tf: Uint32Array },
    private readonly stats: Stats,
  ) {
    const { phrases: p, docids, tf } = matched;
    this.p = p;
    this.docids = docids;
    this.tf = tf;
    this.rows = docids.length;
    const df = new Float64Array(p);
    for (let r = 0; r < this.rows; r++) for (let i = 0; i < p; i++) if (tf[r * p + i]! > 0) df[i]!++;
    this.idf = df.map((d) => Math.log(1 + (stats.n - d + 0.5) / (d + 0.5)));
    this.bounds = new Float64Array(this.rows);
    for (let r = 0; r < this.rows; r++) {
      let minLen = 0; // each hit is a token: the column is at least as long as its largest tf
      for (let i = 0; i < p; i++) minLen = Math.max(minLen, tf[r * p + i]!);
      this.bounds[r] = this.score(r, minLen);
    }
    this.exact = new Float64Array(this.rows).fill(NaN);
    this.verdict = new Uint8Array(this.rows);
  }

  /** bm25.ts bm25Relevance of row `r` for column length `len` (one column, weight 1): the same operations in the same order. */
  private score(r: number, len: number): number {
    const { p, tf, idf } = this;
    const k1 = BM25_K1;
    const a = this.stats.avg;
    const lengthRatio = a > 0 ? len / a : 1;
    const norm = k1 * (1 - BM25_B + BM25_B * lengthRatio);
    let score = 0;
    let matched = 0;
    for (let i = 0; i < p; i++) {
      const t = tf[r * p + i]!;
      if (t === 0) continue;
      matched |= 1 << i;
      score += W * idf[i]! * ((t * (k1 + 1)) / (t + norm));
    }
    if (BM25_COORD > 0 && p > 1 && p <= 32 && score > 0) score *= Math.pow(popcount(matched) / p, BM25_COORD);
    return score;
  }

  topK(k: number): ChunkTextHit[] {
    const { rows, bounds, exact, verdict } = this;
    let best: ChunkTextHit[] = [];
    let theta = -Infinity;
    const batch = Math.max(4 * k, 64);
    for (;;) {
      // Rows not yet scored that could still enter (a tie with the k-th may win on sequence_end).
      const open: number[] = [];
      for (let r = 0; r < rows; r++) if (Number.isNaN(exact[r]!) && bounds[r]! >= theta) open.push(r);
      if (open.length === 0) break;
      this.scoreRows(highest(open, bounds, batch));
      const cand: number[] = [];
      for (let r = 0; r < rows; r++) if (verdict[r] === 0 && exact[r]! >= theta) cand.push(r);
      this.check(cand);
      for (const r of cand) if (verdict[r] === 1) best.push(this.hit(r));
      best.sort(compareHits);
      if (best.length > k) best = best.slice(0, k);
      if (best.length >= k) theta = best[k - 1]!.bm25;
    }
    return best;
  }

  private hit(r: number): ChunkTextHit {
    const s = this.exact[r]!;
    // As the SQL path's -bm25(): bm25() returns 0 (not -0) for a zero score.
    return { rid: this.docids[r]!, seq: this.seq.get(this.docids[r]!)!, bm25: -(s === 0 ? 0 : -s) };
  }

  /** Exact scores of rows from their lengths in `%_docsize`, one statement per batch. */
  private scoreRows(rowIdx: number[]): void {
    for (let s = 0; s < rowIdx.length; s += BATCH_MAX) {
      const part = rowIdx.slice(s, s + BATCH_MAX);
      const byDocid = new Map(part.map((r) => [this.docids[r]!, r]));
      const got = this.store.get<{ rids: string | null; sizes: string | null }>(SIZES_SQL, [JSON.stringify([...byDocid.keys()])]);
      const rids = got?.rids ? parseIntList(got.rids) : [];
      const sizes = (got?.sizes ?? '').split(',');
      if (rids.length !== part.length || sizes.length !== rids.length)
        throw new Error('chunk ranking: a matching chunk has no %_docsize entry');
      rids.forEach((rid, i) => {
        const len = readHexVarints(sizes[i]!, 1);
        const r = byDocid.get(rid);
        if (!len || r === undefined) throw new Error(`chunk ranking: bad %_docsize entry for chunk ${rid}`);
        this.exact[r] = this.score(r, len[0]!);
      });
    }
  }

  /** Filter verdicts and sequence_end of rows. */
  private check(rowIdx: number[]): void {
    for (let s = 0; s < rowIdx.length; s += BATCH_MAX) {
      const part = rowIdx.slice(s, s + BATCH_MAX);
      const passed = this.store.all<{ rid: number; seq: number }>(
        `SELECT c.rid AS rid, c.sequence_end AS seq FROM chunks c WHERE c.rid IN (SELECT value FROM json_each(?)) AND ${this.where.sql}`,
        [JSON.stringify(part.map((r) => this.docids[r]!)), ...this.where.params],
      );
      for (const row of passed) this.seq.set(Number(row.rid), Number(row.seq));
      for (const r of part) this.verdict[r] = this.seq.has(this.docids[r]!) ? 1 : 2;
    }
  }
}

/** The `n` of `rowIdx` with the highest `key` (ties: the first ones; callers come back for the rest). */
function highest(rowIdx: number[], key: Float64Array, n: number): number[] {
  if (rowIdx.length <= n) return rowIdx;
  const keys = Float64Array.from(rowIdx, (r) => key[r]!).sort();
  const cut = keys[rowIdx.length - n]!;
  const out = rowIdx.filter((r) => key[r]! > cut);
  for (const r of rowIdx) {
    if (out.length >= n) break;
    if (key[r] === cut) out.push(r);
  }
  return out;
}

/** The chunk order: higher BM25, then larger sequence_end, then larger rid. */
function compareHits(a: ChunkTextHit, b: ChunkTextHit): number {
  return b.bm25 - a.bm25 || b.seq - a.seq || b.rid - a.rid;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}
