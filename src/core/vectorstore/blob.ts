/** Vectors as BLOBs in the `embeddings` table: little-endian float32, `dim * 4` bytes. */
import * as os from 'node:os';

const LITTLE = os.endianness() === 'LE';

export function vectorToBlob(v: Float32Array): Uint8Array {
  if (LITTLE) return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  const out = new Uint8Array(v.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) dv.setFloat32(i * 4, v[i]!, true);
  return out;
}

/** The vector in `blob`, or undefined when its length does not match `dim`. */
export function blobToVector(blob: unknown, dim: number): Float32Array | undefined {
  if (!(blob instanceof Uint8Array) || blob.byteLength !== dim * 4) return undefined;
  if (LITTLE) return new Float32Array(blob.slice().buffer); // copy: aligned and not a view of sql.js memory
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}
