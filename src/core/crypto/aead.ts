/**
 * Authenticated encryption of the store's files (docs/encryption.md): AES-256-GCM from
 * node:crypto with a fresh random 96-bit nonce per message. A sealed message is
 * `nonce (12) | ciphertext | tag (16)`; the additional data binds it to where it belongs (a log
 * record's sequence number, a file's kind and chunk number), so a record or chunk moved elsewhere
 * does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const KEY_BYTES = 32;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
/** What sealing adds to a message. */
export const SEAL_OVERHEAD = NONCE_BYTES + TAG_BYTES;

/** A sealed message did not open: wrong key, or its bytes (or where they are) changed. */
export class DecryptError extends Error {
  constructor(message = 'the encrypted bytes do not open with this key (wrong key, or damaged bytes)') {
    super(message);
    this.name = 'DecryptError';
  }
}

/** A new random 256-bit key. */
export function newKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

function checkKey(key: Uint8Array): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`an AES-256 key is ${KEY_BYTES} bytes, got ${key.length}`);
}

/** Seals `plain` into `out` at `at` (room for plain.length + SEAL_OVERHEAD); returns the bytes written. */
export function sealInto(key: Uint8Array, plain: Uint8Array, aad: Uint8Array, out: Uint8Array, at: number): number {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  out.set(nonce, at);
  let n = NONCE_BYTES;
  const body = cipher.update(plain);
  out.set(body, at + n);
  n += body.length;
  const last = cipher.final();
  out.set(last, at + n);
  n += last.length;
  out.set(cipher.getAuthTag(), at + n);
  return n + TAG_BYTES;
}

/** `nonce | ciphertext | tag` of `plain` under `key`, bound to `aad`. */
export function seal(key: Uint8Array, plain: Uint8Array, aad: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(plain.length + SEAL_OVERHEAD);
  sealInto(key, plain, aad, out, 0);
  return out;
}

/**
 * Opens a sealed message into `out` at `at` (when given) or a new buffer. Throws DecryptError
 * when it does not authenticate; nothing of an unauthenticated message is returned.
 */
export function open(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array, out?: Uint8Array, at = 0): Buffer {
  checkKey(key);
  if (sealed.length < SEAL_OVERHEAD) throw new DecryptError('the encrypted bytes are cut short');
  const nonce = sealed.subarray(0, NONCE_BYTES);
  const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    if (!out) {
      const first = decipher.update(body);
      const last = decipher.final(); // GCM is a stream mode: nothing is held back, so no joined copy either
      return last.length ? Buffer.concat([first, last]) : first;
    }
    // Into `out` without a joined copy (a snapshot's chunks): the caller drops `out` when this throws
    // (the tag is checked by final(), after the bytes were written). One update() per chunk: smaller
    // pieces cost more calls and saved nothing (bench/RESULTS-encryption.md, run 5).
    const first = decipher.update(body);
    out.set(first, at);
    const last = decipher.final();
    out.set(last, at + first.length);
    return Buffer.from(out.buffer, out.byteOffset + at, first.length + last.length);
  } catch (e) {
    if (e instanceof RangeError) throw e;
    throw new DecryptError();
  }
}
