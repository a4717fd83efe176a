/**
 * Exact top-k BM25 for the full-text leg without ranking every matching row (bm25.ts, fullText.ts).
 *
 * Why: FTS4 has no top-k pruning, and ranking a row through `bm25(matchinfo(t, 'pcnalx'))` costs
 * about ten times enumerating it in sql.js (a %_docsize look-up for 'l', then the matchinfo blob
 * copied byte by byte into a JS call). A typical query matches far more rows than the few dozen
 * wanted (figures: bench/RESULTS-design-notes.md).
 *
 * How (a MaxScore-style bound per row, exact):
 * 1. One statement returns the docids of all matching rows and their `matchinfo 'y'` (hits per
 *    phrase and column) as two strings: ≈ 0.5 µs per row, no per-row JS call.
 * 2. From those rows: df per phrase and column (a row matching a phrase matches the OR query, so
 *    counting them is FTS4's own "rows with a hit" statistic), hence the same idf as bm25.ts;
 *    N and the average lengths come from `%_stat`, as matchinfo 'n' and 'a' do.
 * 3. A row's score is then known up to its column lengths. Its upper bound takes the smallest
 *    possible lengths (each hit is a token, so a column is at least as long as its largest tf),
 *    with the same floating-point operations in the same order: since IEEE +, ×, ÷ are monotone,
 *    bound ≥ score holds exactly, not just approximately.
 * 4. Rows are scored exactly (lengths from `%_docsize`, filters from `memories`) in descending
 *    bound order, by batches; a row whose bound is below the current k-th filtered score cannot
 *    enter the top k and is never looked up.
 * The result is the same ids, order and scores as fullTextSearch (test/core/search/fullTextRank.test.ts
 * compares them on randomized queries). Anything unexpected (a format this code does not know)
 * returns null and the caller uses the straightforward path.
 */
import { Buffer } from 'node:buffer';
import type { Store } from '../store/store';
import type { WhereClause } from './filters';
import { BM25_B, BM25_COORD, BM25_K1 } from './bm25';
import { FTS_COLUMN_WEIGHTS, OWN_TEXT_COLUMNS, fullTextScores, fullTextSearch, type TextHit } from './fullText';
import { joinFtsTerms } from './ftsQuery';
import { liveMeta } from './liveMeta';

/** Rows per exact-scoring statement. */
const BATCH_MAX = 1024;

/**
 * Every matching row with its per-phrase, per-column hit counts. `LIMIT -1` keeps the subquery
 * from being flattened into the aggregate, where matchinfo() is not allowed.
 */
const ROWS_SQL =
  "SELECT group_concat(docid) AS ids, group_concat(h, '') AS hits FROM (SELECT docid, hex(matchinfo(memories_fts, 'y')) AS h " +
  'FROM memories_fts WHERE memories_fts MATCH ? LIMIT -1)';
const STAT_SQL = 'SELECT value FROM memories_fts_stat WHERE id = 0';

export class FullTextRanking {
  private readonly p: number;
  private readonly c: number;
  /** Exact score per row; NaN until its lengths are read. */
  private exact!: Float64Array;
  /** Filter verdict per row: 0 unknown, 1 passes, 2 filtered out. */
  private verdict!: Uint8Array;
  private readonly hits = new Map<number, TextHit>();
  /** Set when a look-up failed: this query then answers the straightforward way. */
  private broken = false;
  private idf!: Float64Array;
  private avg!: number[];
  private bounds!: Float64Array;

  private readonly docids: Float64Array;
  /** Hits, row-major: tf[row·p·c + phrase·c + column]. */
  private readonly tf: Uint32Array;
  readonly rows: number;

  private constructor(
    private readonly store: Store,
    private readonly where: WhereClause,
    private readonly expr: string,
    p: number,
    parsed: ParsedRows,
  ) {
    this.docids = parsed.docids;
    this.tf = parsed.tf;
    this.rows = parsed.rows;
    this.p = p;
    this.c = FTS_COLUMN_WEIGHTS.length;
    this.exact = new Float64Array(parsed.rows).fill(NaN);
    this.verdict = new Uint8Array(parsed.rows);
  }

  /**
   * Reads the matching rows of the OR of `terms` (rendered, see ftsQuery.buildFtsTerms); null when
   * this path does not apply (then use fullTextSearch / fullTextScores).
   */
  static prepare(store: Store, terms: readonly string[], where: WhereClause): FullTextRanking | null {
    const p = terms.length;
    const c = FTS_COLUMN_WEIGHTS.length;
    if (p < 1 || p > 32) return null;
    const expr = joinFtsTerms(terms);
    const got = store.get<{ ids: string | null; hits: string | null }>(ROWS_SQL, [expr]);
    const parsed = parseRows(got?.ids ?? '', got?.hits ?? '', p * c);
    if (!parsed) return null;
    const r = new FullTextRanking(store, where, expr, p, parsed);
    if (parsed.rows > 0 && !r.initStats()) return null;
    return r;
  }

  /** The row index of `docid` (rows are in ascending docid order, see parseRows), or undefined. */
  private rowOf(docid: number): number | undefined {
    const d = this.docids;
    let lo = 0;
    let hi = this.rows - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = d[mid]!;
      if (v === docid) return mid;
      if (v < docid) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** idf per phrase and column (df counted over the rows), N and average lengths, row bounds. */
  private initStats(): boolean {
    const { p, c, rows, tf } = this;
    const stat = this.store.get<{ value: unknown }>(STAT_SQL)?.value;
    if (!(stat instanceof Uint8Array)) return false;
    const totals = readVarints(stat, c + 1);
    if (!totals) return false;
    const nDoc = totals[0]!;
    if (!(nDoc > 0)) return false;
    // matchinfo 'n' and 'a' exactly: n = (u32)nDoc, a = (u32)(((u32)tokens + nDoc/2) / nDoc) in int64.
    const n = nDoc % 2 ** 32;
    this.avg = [];
    for (let j = 0; j < c; j++) this.avg.push(Math.floor(((totals[j + 1]! % 2 ** 32) + Math.floor(nDoc / 2)) / nDoc) % 2 ** 32);
    const pc = p * c;
    const df = new Float64Array(pc);
    for (let r = 0; r < rows; r++) {
      const base = r * pc;
      for (let k = 0; k < pc; k++) if (tf[base + k]! > 0) df[k]!++;
    }
    this.idf = new Float64Array(pc);
    for (let k = 0; k < pc; k++) this.idf[k] = Math.log(1 + (n - df[k]! + 0.5) / (df[k]! + 0.5));
    this.bounds = new Float64Array(rows);
    const minLen = new Float64Array(c);
    for (let r = 0; r < rows; r++) {
      const base = r * pc;
      for (let j = 0; j < c; j++) {
        let m = 0;
        for (let i = 0; i < p; i++) m = Math.max(m, tf[base + i * c + j]!);
        minLen[j] = m;
      }
      this.bounds[r] = this.score(r, minLen);
    }
    return true;
  }

  /**
   * bm25.ts `bm25Relevance` for row `r` with column lengths `len`: the same operations in the same
   * order (so the same double), with idf computed once per query instead of per row.
   */
  private score(r: number, len: Float64Array): number {
    const { p, c, tf, idf, avg } = this;
    const k1 = BM25_K1;
    const b = BM25_B;
    const coord = BM25_COORD;
    const base = r * p * c;
    let score = 0;
    let matched = 0;
    for (let j = 0; j < c; j++) {
      const w: number = FTS_COLUMN_WEIGHTS[j] ?? 1;
      if (w === 0) continue;
      const a = avg[j]!;
      const lengthRatio = a > 0 ? len[j]! / a : 1;
      const norm = k1 * (1 - b + b * lengthRatio);
      for (let i = 0; i < p; i++) {
        const t = tf[base + i * c + j]!;
        if (t === 0) continue;
        matched |= 1 << i;
        score += w * idf[i * c + j]! * ((t * (k1 + 1)) / (t + norm));
      }
    }
    if (coord > 0 && p > 1 && p <= 32 && score > 0) score *= Math.pow(popcount(matched) / p, coord);
    return score;
  }

  /**
   * Exact scores of rows (indexes) from their column lengths in `%_docsize` (a small table that
   * stays in SQLite's page cache, unlike `memories`). One statement per batch, rids in as one
   * JSON parameter, answers out as concatenated lists: per-row binding and getAsObject cost more
   * than the look-ups themselves in sql.js.
   */
  private scoreRows(rowIdx: readonly number[]): void {
    const lenBuf = new Float64Array(this.c);
    for (let s = 0; s < rowIdx.length; s += BATCH_MAX) {
      const part = rowIdx.slice(s, s + BATCH_MAX).filter((r) => Number.isNaN(this.exact[r]!));
      if (part.length === 0) continue;
      const got = this.store.get<{ rids: string | null; sizes: string | null }>(SIZES_SQL, [
        JSON.stringify(part.map((r) => this.docids[r]!)),
      ]);
      const rids = got?.rids ? parseIntList(got.rids) : [];
      const sizes = got?.sizes ?? '';
      if (rids.length !== part.length) throw new Error('full-text ranking: a matching row has no %_docsize entry');
      let pos = 0;
      for (let i = 0; i < rids.length; i++) {
        const end = i + 1 < rids.length ? sizes.indexOf(',', pos) : sizes.length;
        const r = this.rowOf(rids[i]!);
        if (r === undefined || end < 0 || !hexVarintsInto(sizes, pos, end, lenBuf))
          throw new Error(`full-text ranking: bad %_docsize entry for row ${rids[i]}`);
        pos = end + 1;
        this.exact[r] = this.score(r, lenBuf);
      }
    }
  }

  /** Filter verdicts (and id, created_at) of scored rows (liveMeta.ts). */
  private check(rowIdx: readonly number[]): void {
    const part = rowIdx.filter((r) => this.verdict[r] === 0);
    if (part.length === 0) return;
    const live = liveMeta(
      this.store,
      part.map((r) => this.docids[r]!),
      this.where,
    );
    for (const r of part) {
      const m = live.get(this.docids[r]!);
      this.verdict[r] = m ? 1 : 2;
      if (!m) continue;
      const score = this.exact[r]!;
      // As fullText.ts's toHit(-(-score)), where bm25() returns 0 (not -0) for a zero score.
      this.hits.set(r, { rid: this.docids[r]!, id: m.id, createdAt: m.createdAt, bm25: -(score === 0 ? 0 : -score) });
    }
  }

  /**
   * Best `k` live matching memories, best first (ties: newer first): fullTextSearch's answer.
   * A store that breaks this path's expectations (a %_docsize entry missing or unreadable) gets
   * the straightforward ranking instead of an error.
   */
  topK(k: number): TextHit[] {
    if (!this.broken) {
      try {
        return this.prunedTopK(k);
      } catch {
        this.broken = true;
      }
    }
    return fullTextSearch(this.store, this.expr, this.where, k);
  }

  private prunedTopK(k: number): TextHit[] {
    const { rows, bounds, exact, verdict } = this;
    if (rows === 0 || k < 1) return [];
    let best: TextHit[] = [];
    let theta = -Infinity;
    const batch = Math.max(4 * k, 64);
    const take = (live: TextHit[]) => {
      best.push(...live);
      best.sort(compareHits);
      if (best.length > k) best = best.slice(0, k);
      if (best.length >= k) theta = best[k - 1]!.bm25;
    };
    for (;;) {
      // Rows whose score is unknown and could still enter the top k (bound ≥ the k-th score: a tie may win on recency).
      const open: number[] = [];
      for (let r = 0; r < rows; r++) if (Number.isNaN(exact[r]!) && bounds[r]! >= theta) open.push(r);
      if (open.length === 0) break;
      this.scoreRows(highest(open, bounds, batch));
      // Filter verdicts for scored rows that could enter, best first, until none is left above θ.
      for (;;) {
        const cand: number[] = [];
        for (let r = 0; r < rows; r++) if (verdict[r] === 0 && exact[r]! >= theta) cand.push(r);
        if (cand.length === 0) break;
        const chunk = best.length >= k ? cand : highest(cand, exact, Math.max(k - best.length, 16));
        this.check(chunk);
        take(chunk.filter((r) => verdict[r] === 1).map((r) => this.hits.get(r)!));
      }
    }
    return best;
  }

  /**
   * The terms (by index into `prepare`'s `terms`) each of `rids` holds in its own text (title,
   * content, tags) and those it holds only in its search context, read from the hits this ranking
   * already has; rows matching none are absent. Filters are not applied.
   */
  termsHeld(rids: readonly number[]): Map<number, { own: number[]; context: number[] }> {
    const { p, c, tf } = this;
    const out = new Map<number, { own: number[]; context: number[] }>();
    for (const rid of new Set(rids)) {
      const r = this.rowOf(rid);
      if (r === undefined) continue;
      const own: number[] = [];
      const context: number[] = [];
      for (let phrase = 0; phrase < p; phrase++) {
        const base = r * p * c + phrase * c;
        let inOwn = false;
        let inContext = false;
        for (let col = 0; col < c; col++) {
          if (tf[base + col]! === 0) continue;
          if (col < OWN_TEXT_COLUMNS) inOwn = true;
          else inContext = true;
        }
        if (inOwn) own.push(phrase);
        else if (inContext) context.push(phrase);
      }
      if (own.length || context.length) out.set(rid, { own, context });
    }
    return out;
  }

  /** BM25 of specific memories that pass the filters; non-matching ones are absent (fullTextScores). */
  scores(rids: readonly number[]): Map<number, TextHit> {
    if (!this.broken) {
      try {
        return this.prunedScores(rids);
      } catch {
        this.broken = true;
      }
    }
    return fullTextScores(this.store, this.expr, this.where, rids);
  }

  private prunedScores(rids: readonly number[]): Map<number, TextHit> {
    const rowIdx: number[] = [];
    for (const rid of new Set(rids)) {
      const r = this.rowOf(rid);
      if (r !== undefined) rowIdx.push(r);
    }
    this.scoreRows(rowIdx);
    this.check(rowIdx);
    const out = new Map<number, TextHit>();
    for (const r of rowIdx) if (this.verdict[r] === 1) out.set(this.docids[r]!, this.hits.get(r)!);
    return out;
  }
}

/** The `n` of `rowIdx` with the highest `key` (ties: the first ones; callers come back for the rest). */
function highest(rowIdx: number[], key: Float64Array, n: number): number[] {
  if (rowIdx.length <= n) return rowIdx;
  const keys = new Float64Array(rowIdx.length);
  for (let i = 0; i < rowIdx.length; i++) keys[i] = key[rowIdx[i]!]!;
  const cut = keys.sort()[rowIdx.length - n]!;
  const out = rowIdx.filter((r) => key[r]! > cut);
  for (const r of rowIdx) {
    if (out.length >= n) break;
    if (key[r] === cut) out.push(r);
  }
  return out;
}

const SIZES_SQL =
  "SELECT group_concat(docid) AS rids, group_concat(hex(size), ',') AS sizes FROM memories_fts_docsize WHERE docid IN (SELECT value FROM json_each(?))";

/** fullTextSearch's order: higher BM25, then newer created_at, then higher rid. */
function compareHits(a: TextHit, b: TextHit): number {
  if (a.bm25 !== b.bm25) return b.bm25 - a.bm25;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.rid - a.rid;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

/**
 * Parses ROWS_SQL's answer: `ids` = `docid,docid,…`, `hits` = each row's `width` little-endian
 * uint32s in hex, concatenated in the same order. Null on anything else, so a surprise in the
 * format falls back instead of ranking wrongly.
 */
export function parseRows(ids: string, hits: string, width: number): ParsedRows | null {
  if (ids.length === 0) return hits.length === 0 ? { docids: new Float64Array(0), tf: new Uint32Array(0), rows: 0 } : null;
  const rows = hits.length / (8 * width);
  if (!Number.isInteger(rows)) return null;
  const docids = parseDocids(ids, rows);
  if (!docids) return null;
  const tf = decodeHits(hits, rows * width);
  return tf ? { docids, tf, rows } : null;
}

/** The rows ParsedRows describes: ascending docids and their matchinfo uint32s. */
export interface ParsedRows {
  docids: Float64Array;
  tf: Uint32Array;
  rows: number;
}

/** Exactly `rows` comma-separated integers in ascending order, or null. */
function parseDocids(ids: string, rows: number): Float64Array | null {
  const docids = new Float64Array(rows);
  let n = 0;
  let pos = 0;
  const len = ids.length;
  for (;;) {
    let neg = false;
    if (ids.charCodeAt(pos) === 45) {
      neg = true;
      pos++;
    }
    let d = 0;
    const from = pos;
    for (let ch = ids.charCodeAt(pos); ch >= 48 && ch <= 57; ch = ids.charCodeAt(++pos)) d = d * 10 + (ch - 48);
    if (pos === from || n >= rows) return null;
    const docid = neg ? -d : d;
    // FTS4 returns rows by ascending docid; anything else is refused (rowOf searches them).
    if (n > 0 && !(docid > docids[n - 1]!)) return null;
    docids[n++] = docid;
    if (pos === len) break;
    if (ids.charCodeAt(pos) !== 44 || pos + 1 === len) return null;
    pos++;
  }
  return n === rows ? docids : null;
}

/** `count` little-endian uint32s from their hex text, or null when it is not exactly that. */
function decodeHits(hits: string, count: number): Uint32Array | null {
  // Native hex decoding (it stops at the first non-hex pair, hence the length check), read in
  // place as little-endian uint32s (copied first if the Buffer is not 4-byte aligned).
  const decoded = Buffer.from(hits, 'hex');
  if (decoded.length !== count * 4) return null;
  let bytes: Uint8Array = decoded;
  if (decoded.byteOffset % 4 !== 0) {
    bytes = new Uint8Array(decoded.length);
    bytes.set(decoded);
  }
  return LITTLE_ENDIAN
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, count)
    : Uint32Array.from({ length: count }, (_, i) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(i * 4, true));
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `count` FTS varints (little-endian base 128, as %_stat and %_docsize store them); null if short. */
export function readVarints(blob: Uint8Array, count: number): number[] | null {
  const out: number[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (pos >= blob.length || mul > 2 ** 63) return null;
      const byte = blob[pos++]!;
      v += (byte & 0x7f) * mul;
      mul *= 128;
      if (!(byte & 0x80)) break;
    }
    out.push(v);
  }
  return out;
}

/** readVarints over the hex text of the blob (`hex(size)`). */
export function readHexVarints(hex: string, count: number): number[] | null {
  const out = new Float64Array(count);
  return hexVarintsInto(hex, 0, hex.length, out) ? [...out] : null;
}

/** `out.length` varints from the hex text s[start, end) into `out`, without allocating; false if short or not hex. */
function hexVarintsInto(s: string, start: number, end: number, out: Float64Array): boolean {
  if ((end - start) % 2 !== 0) return false;
  let pos = start;
  for (let i = 0; i < out.length; i++) {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (pos >= end || mul > 2 ** 63) return false;
      const hi = hexDigit(s.charCodeAt(pos));
      const lo = hexDigit(s.charCodeAt(pos + 1));
      if (hi < 0 || lo < 0) return false;
      pos += 2;
      const byte = hi * 16 + lo;
      v += (byte & 0x7f) * mul;
      mul *= 128;
      if (!(byte & 0x80)) break;
    }
    out[i] = v;
  }
  return true;
}

/** `1,22,333` → [1, 22, 333] (non-negative integers, as group_concat(rid) gives them). */
export function parseIntList(s: string): number[] {
  const out: number[] = [];
  let v = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const ch = i < s.length ? s.charCodeAt(i) : 44;
    if (ch >= 48 && ch <= 57) {
      v = v * 10 + (ch - 48);
      digits++;
    } else if (ch === 44 && digits > 0) {
      out.push(v);
      v = 0;
      digits = 0;
    } else {
      throw new Error(`not a list of integers: ${s.slice(0, 40)}`);
    }
  }
  return out;
}

function hexDigit(ch: number): number {
  if (ch >= 48 && ch <= 57) return ch - 48;
  if (ch >= 65 && ch <= 70) return ch - 55;
  return -1;
}
