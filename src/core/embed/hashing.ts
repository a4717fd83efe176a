/** 32-bit non-cryptographic hashing used by the hash embedder (FNV-1a + murmur3's finalizer). */

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** One FNV-1a step over a UTF-16 code unit. */
export function fnvStep(h: number, codeUnit: number): number {
  return Math.imul(h ^ codeUnit, FNV_PRIME);
}

/** FNV-1a over the UTF-16 code units of `s`, starting from `seed`. Unsigned 32-bit. */
export function fnv1a32(s: string, seed: number = FNV_OFFSET): number {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** murmur3's 32-bit finalizer: spreads every input bit over every output bit. Unsigned. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
