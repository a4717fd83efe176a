/**
 * Brute-force cosine search over a dense, growable Float32Array matrix of normalized rows.
 * Exact results; used while an HNSW index is being (re)built and as the benchmark baseline.
 *
 * Layout: row `s` of `data` holds the normalized vector of `slotLabel[s]`; rows 0..size-1 are
 * live (removal moves the last row into the hole), so a search is one linear pass. Top-k is a
 * bounded min-heap on preallocated typed arrays: most rows cost one comparison after the dot
 * product.
 *
 * `storage: 'int8'` keeps each row as int8 codes (max-abs scaled) and the inverse norm of the
 * codes: a quarter of the memory, and the exact cosine of the vectors the `embeddings` table
 * stores (src/core/vectorstore/blob.ts uses the same codes), which is what the vector store
 * needs while it rebuilds HNSW.
 */
import { checkDim, checkLabel, checkVector, type LabelFilter, type VectorHit, type VectorIndex, type VectorSpace } from './types';

export interface ExactParams {
  dim: number;
  space?: VectorSpace;
  /** Rows allocated up front; grows by doubling. Default 1024. */
  initialCapacity?: number;
  /** How rows are held (see above). Default 'float32'. */
  storage?: 'float32' | 'int8';
}

export class ExactIndex implements VectorIndex {
  readonly space: VectorSpace = 'cosine';
  readonly dim: number;
  private data: Float32Array | Int8Array;
  /** int8 storage: 1 / |codes| per row (the row's cosine scale). */
  private rowMul: Float32Array | undefined;
  private slotLabel: Uint32Array;
  private readonly slotOf = new Map<number, number>();
  private n = 0;
  private cap: number;
  private readonly q: Float32Array;
  private heapScore = new Float64Array(16);
  private heapSlot = new Int32Array(16);

  constructor(params: ExactParams) {
    checkDim(params.dim);
    if (params.space !== undefined && params.space !== 'cosine') throw new RangeError(`unsupported vector space ${String(params.space)}`);
    const cap = params.initialCapacity ?? 1024;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`initialCapacity must be a positive integer, got ${cap}`);
    this.dim = params.dim;
    this.cap = cap;
    const int8 = params.storage === 'int8';
    if (params.storage !== undefined && !int8 && params.storage !== 'float32')
      throw new RangeError(`unknown storage ${String(params.storage)}`);
    this.data = int8 ? new Int8Array(cap * params.dim) : new Float32Array(cap * params.dim);
    this.rowMul = int8 ? new Float32Array(cap) : undefined;
    this.slotLabel = new Uint32Array(cap);
    this.q = new Float32Array(params.dim);
  }

  get size(): number {
    return this.n;
  }

  get capacity(): number {
    return this.cap;
  }

  has(label: number): boolean {
    return this.slotOf.has(label);
  }

  labels(): number[] {
    return Array.from(this.slotLabel.subarray(0, this.n));
  }

  add(label: number, vector: ArrayLike<number>): void {
    checkLabel(label);
    const sq = checkVector(vector, this.dim, `vector for label ${label}`);
    let slot = this.slotOf.get(label);
    if (slot === undefined) {
      if (this.n === this.cap) this.grow(this.n + 1);
      slot = this.n++;
      this.slotOf.set(label, slot);
      this.slotLabel[slot] = label;
    }
    const inv = 1 / Math.sqrt(sq);
    const d = this.dim;
    const data = this.data;
    const base = slot * d;
    if (!this.rowMul) {
      for (let i = 0; i < d; i++) data[base + i] = vector[i]! * inv;
      return;
    }
    let max = 0;
    for (let i = 0; i < d; i++) max = Math.max(max, Math.abs(vector[i]!));
    const toCode = 127 / max;
    let cc = 0;
    for (let i = 0; i < d; i++) {
      const c = Math.max(-127, Math.min(127, Math.round(vector[i]! * toCode)));
      data[base + i] = c;
      cc += c * c;
    }
    this.rowMul[slot] = 1 / Math.sqrt(cc);
  }

  addMany(labels: ArrayLike<number>, vectors: ArrayLike<ArrayLike<number>>): void {
    if (labels.length !== vectors.length) throw new RangeError(`addMany: ${labels.length} labels but ${vectors.length} vectors`);
    if (this.n + labels.length > this.cap) this.grow(this.n + labels.length);
    for (let i = 0; i < labels.length; i++) this.add(labels[i]!, vectors[i]!);
  }

  remove(label: number): boolean {
    const slot = this.slotOf.get(label);
    if (slot === undefined) return false;
    this.slotOf.delete(label);
    const last = --this.n;
    if (slot !== last) {
      const d = this.dim;
      this.data.copyWithin(slot * d, last * d, last * d + d);
      if (this.rowMul) this.rowMul[slot] = this.rowMul[last]!;
      const moved = this.slotLabel[last]!;
      this.slotLabel[slot] = moved;
      this.slotOf.set(moved, slot);
    }
    return true;
  }

  /** The stored (normalized) vector of a label. */
  getVector(label: number): Float32Array | undefined {
    const slot = this.slotOf.get(label);
    if (slot === undefined) return undefined;
    const row = this.data.subarray(slot * this.dim, slot * this.dim + this.dim);
    if (!this.rowMul) return (row as Float32Array).slice();
    const mul = this.rowMul[slot]!;
    return Float32Array.from(row, (c) => c * mul);
  }

  search(query: ArrayLike<number>, k: number, filter?: LabelFilter): VectorHit[] {
    const sq = checkVector(query, this.dim, 'query vector');
    const n = this.n;
    if (!(k >= 1) || n === 0) return [];
    k = Math.min(Math.floor(k), n);
    const d = this.dim;
    const q = this.q;
    const inv = 1 / Math.sqrt(sq);
    for (let i = 0; i < d; i++) q[i] = query[i]! * inv;
    if (this.heapScore.length < k) {
      this.heapScore = new Float64Array(k);
      this.heapSlot = new Int32Array(k);
    }
    const hs = this.heapScore;
    const hi = this.heapSlot;
    const data = this.data;
    const rowMul = this.rowMul;
    const labels = this.slotLabel;
    const d4 = d - (d & 3);
    let size = 0;
    let worst = -Infinity; // hs[0] once the heap is full

    for (let s = 0, base = 0; s < n; s++, base += d) {
      if (filter !== undefined && filter(labels[s]!) !== true) continue;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let j = 0;
      for (; j < d4; j += 4) {
        a0 += data[base + j]! * q[j]!;
        a1 += data[base + j + 1]! * q[j + 1]!;
        a2 += data[base + j + 2]! * q[j + 2]!;
        a3 += data[base + j + 3]! * q[j + 3]!;
      }
      for (; j < d; j++) a0 += data[base + j]! * q[j]!;
      const score = rowMul === undefined ? a0 + a1 + (a2 + a3) : (a0 + a1 + (a2 + a3)) * rowMul[s]!;

      if (size < k) {
        heapPush(hs, hi, size++, score, s);
        if (size === k) worst = hs[0]!;
      } else if (score > worst) {
        heapReplaceRoot(hs, hi, k, score, s);
        worst = hs[0]!;
      }
    }

    return rankedHits(hs, hi, size, labels);
  }

  private grow(min: number): void {
    const cap = Math.max(min, this.cap * 2);
    const data = this.rowMul ? new Int8Array(cap * this.dim) : new Float32Array(cap * this.dim);
    data.set(this.data.subarray(0, this.n * this.dim));
    if (this.rowMul) {
      const mul = new Float32Array(cap);
      mul.set(this.rowMul.subarray(0, this.n));
      this.rowMul = mul;
    }
    const labels = new Uint32Array(cap);
    labels.set(this.slotLabel.subarray(0, this.n));
    this.data = data;
    this.slotLabel = labels;
    this.cap = cap;
  }
}

// The top-k min-heap of ExactIndex.search: scores in `hs`, slots in `hi`, the worst kept score at the root.

/** Adds `score`/`slot` as element `size` of a heap that is not full (sift up). */
function heapPush(hs: Float64Array, hi: Int32Array, size: number, score: number, slot: number): void {
  let c = size;
  while (c > 0) {
    const p = (c - 1) >> 1;
    if (hs[p]! <= score) break;
    hs[c] = hs[p]!;
    hi[c] = hi[p]!;
    c = p;
  }
  hs[c] = score;
  hi[c] = slot;
}

/** Replaces the root of a full heap of `k` with a better `score`/`slot` (sift down). */
function heapReplaceRoot(hs: Float64Array, hi: Int32Array, k: number, score: number, slot: number): void {
  let c = 0;
  for (;;) {
    const l = 2 * c + 1;
    if (l >= k) break;
    const r = l + 1;
    const m = r < k && hs[r]! < hs[l]! ? r : l;
    if (hs[m]! >= score) break;
    hs[c] = hs[m]!;
    hi[c] = hi[m]!;
    c = m;
  }
  hs[c] = score;
  hi[c] = slot;
}

/** The heap's `size` entries as hits, best first (ties: lower label first). */
function rankedHits(hs: Float64Array, hi: Int32Array, size: number, labels: Uint32Array): VectorHit[] {
  const order = new Array<number>(size);
  for (let i = 0; i < size; i++) order[i] = i;
  order.sort((x, y) => hs[y]! - hs[x]! || labels[hi[x]!]! - labels[hi[y]!]!);
  const out = new Array<VectorHit>(size);
  for (let i = 0; i < size; i++) {
    const h = order[i]!;
    const sim = Math.max(-1, Math.min(1, hs[h]!));
    out[i] = { label: labels[hi[h]!]!, distance: 1 - sim, similarity: sim };
  }
  return out;
}
