/**
 * The user key as text a person can keep and type (docs/encryption.md "Recovery key"):
 * `AMRK-` then the key and a CRC-32 of it in base32 (RFC 4648, no padding), in groups of five.
 * The checksum catches a mistyped character before any store is tried with a wrong key.
 */
import * as zlib from 'node:zlib';
import { KEY_BYTES } from './aead';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const PREFIX = 'AMRK-';

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer | undefined {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) return undefined;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The recovery text of a user key. */
export function formatRecoveryKey(key: Uint8Array): string {
  const body = Buffer.alloc(KEY_BYTES + 4);
  body.set(key, 0);
  body.writeUInt32LE(zlib.crc32(key) >>> 0, KEY_BYTES);
  return PREFIX + (base32(body).match(/.{1,5}/g) ?? []).join('-');
}

/** The key a recovery text holds; a sentence saying what is wrong when it holds none. */
export function parseRecoveryKey(text: string): { key: Buffer } | { error: string } {
  const t = text.trim().toUpperCase().replace(/\s+/g, '');
  if (!t.startsWith(PREFIX)) return { error: `a recovery key starts with ${PREFIX}` };
  const chars = t.slice(PREFIX.length).replace(/-/g, '');
  const body = unbase32(chars);
  if (!body || body.length !== KEY_BYTES + 4)
    return { error: 'it has characters a recovery key does not have, or too few or too many of them' };
  const key = body.subarray(0, KEY_BYTES);
  if (zlib.crc32(key) >>> 0 !== body.readUInt32LE(KEY_BYTES)) return { error: 'its checksum does not match: a character is mistyped' };
  // The last character holds two unused bits, 0 in a key we wrote; other values read as the same
  // key, so a typo there would otherwise pass unnoticed.
  if (base32(body) !== chars) return { error: 'its last character is mistyped' };
  return { key: Buffer.from(key) };
}
