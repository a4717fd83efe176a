/**
 * How a log record's payload is written: plain (encodeTx) or sealed under the store's data key
 * (docs/encryption.md "Formats"). The frame around it — `[length][crc32][payload]` — is the same
 * for both, and a sealed payload keeps the record's seq in the clear at its start, where a plain
 * one has it: finding the next intact record after damage works the same way.
 */
import { DecryptError } from '../crypto/aead';
import type { FileCipher } from '../crypto/fileCipher';
import { UserFacingError } from '../util/errors';
import { decodeTx, encodeTx, type TxRecord } from './opCodec';

export interface LogCodec {
  /** The segment header of this format (8 bytes). */
  readonly magic: Buffer;
  readonly encrypted: boolean;
  encode(rec: TxRecord): Buffer;
  /** Throws when the payload is not a record of this format (damage, or another key). */
  decode(payload: Buffer): TxRecord;
}

export const PLAIN_MAGIC = Buffer.from('AMOPLOG1', 'ascii');
export const SEALED_MAGIC = Buffer.from('AMOPLOE1', 'ascii');

export const PLAIN_CODEC: LogCodec = { magic: PLAIN_MAGIC, encrypted: false, encode: encodeTx, decode: decodeTx };

export function sealedCodec(cipher: FileCipher): LogCodec {
  return {
    magic: SEALED_MAGIC,
    encrypted: true,
    encode: (rec) => cipher.sealRecord(rec.seq, encodeTx(rec)),
    decode: (payload) => {
      const rec = decodeTx(cipher.openRecord(payload));
      if (rec.seq !== payload.readDoubleLE(0)) throw new DecryptError('the record does not carry the number it is stored under');
      return rec;
    },
  };
}

export function codecFor(cipher: FileCipher | undefined): LogCodec {
  return cipher ? sealedCodec(cipher) : PLAIN_CODEC;
}

/**
 * A segment written in the other format: an encrypted segment read without the key, or a plain
 * one in an encrypted store. Never read as damage (that would cut and set aside the whole log).
 */
export function checkSegmentFormat(file: string, head: Buffer, codec: LogCodec): void {
  if (codec.encrypted && head.equals(PLAIN_MAGIC)) {
    throw new UserFacingError(
      `The memory store is encrypted, but its log segment ${file} is not: it was not written by this store. ` +
        'Nothing was read or changed. Move the file out of the store folder and open the store again.',
      'store_corrupt',
    );
  }
  if (!codec.encrypted && head.equals(SEALED_MAGIC)) {
    throw new UserFacingError(
      `The log segment ${file} is encrypted, but the memory store has no key header (store.key): it was removed or ` +
        'never copied. Nothing was read or changed. Put store.key back from where the store came from, or restore the store folder.',
      'store_key_missing',
    );
  }
}
