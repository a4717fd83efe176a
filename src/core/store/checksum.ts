import * as zlib from 'node:zlib';

let table: Uint32Array | undefined;

/**
 * CRC-32 (IEEE). Uses node's zlib.crc32 where present (Node ≥ 20.15), else a table.
 * `previous`: the CRC of the bytes before `data`, to checksum a stream in chunks.
 */
export function crc32(data: Uint8Array, previous = 0): number {
  const native = (zlib as unknown as { crc32?: (d: Uint8Array, v?: number) => number }).crc32;
  if (native) return native(data, previous) >>> 0;
  const t = crcTable();
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The ends e in (start, end], in order, at which the CRC-32 of data[start, e) equals `target`:
 * one running checksum, so finding where a record whose length field is damaged really ends
 * costs one pass over its bytes.
 */
export function* crc32Ends(data: Uint8Array, start: number, end: number, target: number): Generator<number> {
  const t = crcTable();
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) {
    crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
    if ((crc ^ 0xffffffff) >>> 0 === target) yield i + 1;
  }
}

function crcTable(): Uint32Array {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  return table;
}
