/**
 * Vectors as BLOBs in the `embeddings` table. Two formats, told apart by their length (so a
 * store written by an older version opens and works without a migration):
 *
 * - int8 (written now): `4 + dim` bytes = little-endian float32 scale, then `dim` int8 codes;
 *   component i is `code[i] * scale`, scale = max |v[i]| / 127. A quarter of float32, and small
 *   enough to stay on the b-tree page: `embeddings` is WITHOUT ROWID, so a row over ~1,000 bytes
 *   spills into an overflow page of its own (sizes: bench/RESULTS-design-notes.md). Cosine error
 *   against the float32 original: see test/core/vectorstore/blob.test.ts.
 * - float32 (rows of older versions): `dim * 4` bytes, little endian. Read, never written.
 *
 * The HNSW index keeps float32 copies of the DEQUANTIZED vectors (it is synced from this table),
 * so index, exact fallback and stored similarities all see the same vectors.
 * A vector with a non-finite component is stored with a NaN scale: it reads back non-finite and
 * is refused by the index like before.
 */

const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export type BlobFormat = 'int8' | 'float32';

/** Byte length of a vector of `dim` components in each format. */
export function blobLength(dim: number, format: BlobFormat): number {
  return format === 'int8' ? dim + 4 : dim * 4;
}

/** The format of `blob` for a vector of `dim` components, or undefined when its length fits neither. */
export function blobFormat(blob: unknown, dim: number): BlobFormat | undefined {
  if (!(blob instanceof Uint8Array) || !(dim >= 1)) return undefined;
  if (blob.byteLength === dim + 4) return 'int8';
  if (blob.byteLength === dim * 4) return 'float32';
  return undefined;
}

/** The compact (int8) blob of `v`: what is written to `embeddings`. */
export function vectorToBlob(v: Float32Array): Uint8Array {
  const dim = v.length;
  let max = 0;
  let finite = true;
  for (let i = 0; i < dim; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) finite = false;
    else if (Math.abs(x) > max) max = Math.abs(x);
  }
  const out = new Uint8Array(dim + 4);
  const scale = finite ? max / 127 : NaN;
  new DataView(out.buffer).setFloat32(0, scale, true);
  if (scale > 0) {
    const codes = new Int8Array(out.buffer, 4, dim);
    const inv = 1 / scale;
    for (let i = 0; i < dim; i++) codes[i] = Math.max(-127, Math.min(127, Math.round(v[i]! * inv)));
  }
  return out;
}

/** The float32 blob of `v` (the format of older versions; kept for tests and tools). */
export function vectorToFloat32Blob(v: Float32Array): Uint8Array {
  if (LITTLE) return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  const out = new Uint8Array(v.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) dv.setFloat32(i * 4, v[i]!, true);
  return out;
}

/** The vector in `blob` (either format; always a fresh array), or undefined when its length does not match `dim`. */
export function blobToVector(blob: unknown, dim: number): Float32Array | undefined {
  const format = blobFormat(blob, dim);
  if (!format) return undefined;
  const b = blob as Uint8Array;
  const out = new Float32Array(dim);
  if (format === 'int8') {
    const scale = int8Scale(b);
    const codes = int8Codes(b, dim);
    for (let i = 0; i < dim; i++) out[i] = codes[i]! * scale;
    return out;
  }
  if (LITTLE) {
    new Uint8Array(out.buffer).set(b); // copy: aligned and not a view of sql.js memory
    return out;
  }
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < dim; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

/** Scale of an int8 blob (NaN when the vector was not finite). */
export function int8Scale(blob: Uint8Array): number {
  return new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true);
}

/** The codes of an int8 blob, as a view (no copy; Int8Array needs no alignment). */
export function int8Codes(blob: Uint8Array, dim: number): Int8Array {
  return new Int8Array(blob.buffer, blob.byteOffset + 4, dim);
}

/**
 * Cosine of `query` (of norm `qn` > 0) with the vector in `blob`, without materializing it;
 * undefined when the blob does not fit `dim` or its vector is zero or not finite.
 */
export function cosineWithBlob(query: Float32Array, qn: number, blob: unknown, dim: number): number | undefined {
  const format = blobFormat(blob, dim);
  if (!format) return undefined;
  const b = blob as Uint8Array;
  let v: ArrayLike<number>;
  if (format === 'int8') {
    // The scale cancels out of the cosine; it only has to be a positive finite number.
    const scale = int8Scale(b);
    if (!(scale > 0) || !Number.isFinite(scale)) return undefined;
    v = int8Codes(b, dim);
  } else {
    v = LITTLE && b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, dim) : blobToVector(b, dim)!;
  }
  let d = 0;
  let vv = 0;
  for (let i = 0; i < dim; i++) {
    const x = v[i]!;
    d += x * query[i]!;
    vv += x * x;
  }
  if (!(vv > 0) || !Number.isFinite(vv) || !Number.isFinite(d)) return undefined;
  return Math.max(-1, Math.min(1, d / (qn * Math.sqrt(vv))));
}
