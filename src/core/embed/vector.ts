/** Small vector helpers shared by the embedders and their callers. */

/** Scales `v` in place to unit length. A zero vector stays zero. Returns `v`. */
export function l2normalize(v: Float32Array): Float32Array {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
  if (ss > 0) {
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

/** Copies numbers into a new unit-length Float32Array. */
export function toUnitFloat32(values: ArrayLike<number>): Float32Array {
  return l2normalize(Float32Array.from(values as ArrayLike<number>));
}

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Cosine similarity (does not assume unit vectors). 0 when either vector is zero. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? d / Math.sqrt(na * nb) : 0;
}

/**
 * Why `v` cannot be used as an embedding, or undefined when it can: a NaN/Infinity component
 * or an all-zero vector (no direction: cosine is undefined and the index refuses it). Every
 * place that receives vectors from an embedder checks with this, so a broken model answer is
 * an embedding failure (memory pending, query keyword-only), never an internal error.
 */
export function unusableVectorReason(v: ArrayLike<number>): string | undefined {
  let nonZero = false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) return `holds ${String(x)} at position ${i}`;
    if (x !== 0) nonZero = true;
  }
  return nonZero ? undefined : 'is all zeros';
}
