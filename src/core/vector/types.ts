/** One search result. Cosine: `similarity = 1 - distance`, best first. */
export interface VectorHit {
  label: number;
  /** Cosine distance, 0 (same direction) … 2 (opposite). */
  distance: number;
  /** Cosine similarity, 1 … -1. */
  similarity: number;
}

/** Keep a candidate? Called with labels only; must be fast and must not throw (a throw is re-thrown after the search). */
export type LabelFilter = (label: number) => boolean;

export type VectorSpace = 'cosine';

/** What HnswIndex and ExactIndex have in common (the engine can swap one for the other). */
export interface VectorIndex {
  readonly dim: number;
  readonly space: VectorSpace;
  /** Live (searchable) vectors. */
  readonly size: number;
  /** Insert or replace the vector of `label` (a uint32). */
  add(label: number, vector: ArrayLike<number>): void;
  /** Remove `label`; false if it was not there. Idempotent. */
  remove(label: number): boolean;
  has(label: number): boolean;
  /** Up to `k` nearest live vectors, best first, keeping only labels `filter` accepts. */
  search(query: ArrayLike<number>, k: number, filter?: LabelFilter): VectorHit[];
  /** Live labels (no particular order). */
  labels(): number[];
}

export const MAX_LABEL = 0xffffffff;

export function checkLabel(label: number): void {
  if (!Number.isInteger(label) || label < 0 || label > MAX_LABEL) {
    throw new RangeError(`vector label must be an integer in 0..${MAX_LABEL}, got ${label}`);
  }
}

export function checkDim(dim: number): void {
  if (!Number.isInteger(dim) || dim < 1 || dim > 65536) throw new RangeError(`vector dimension must be an integer in 1..65536, got ${dim}`);
}

/**
 * Validates length and values; returns the squared norm. Zero and non-finite vectors have no
 * cosine direction, so they are refused rather than silently stored.
 */
export function checkVector(v: ArrayLike<number>, dim: number, what: string): number {
  if (!v || typeof v.length !== 'number') throw new TypeError(`${what} must be an array of ${dim} numbers`);
  if (v.length !== dim) throw new RangeError(`${what} has ${v.length} dimensions, the index has ${dim}`);
  let sq = 0;
  for (let i = 0; i < dim; i++) {
    const x = v[i]!;
    sq += x * x;
  }
  if (!Number.isFinite(sq)) throw new RangeError(`${what} contains a non-finite value (NaN or Infinity)`);
  if (sq === 0) throw new RangeError(`${what} is all zeros and has no direction`);
  return sq;
}
