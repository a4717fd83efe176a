/**
 * `store.key`: the header that says a store is encrypted (docs/encryption.md). It holds the
 * store's data key wrapped (AES-256-GCM) by a per-user key, and that user key's id. Rotating the
 * user key rewraps the data key; the store's files stay as they are. A store with this file is
 * never opened without its key and never written in plaintext.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserFacingError } from '../util/errors';
import { DecryptError, KEY_BYTES, newKey, open, seal } from './aead';
import { FileCipher } from './fileCipher';
import { userKeyId, type UserKey, type UserKeyring } from './userKeys';

export const STORE_KEY_FILE = 'store.key';
const FORMAT = 'agent-memory-store-key';

export interface StoreKeyHeader {
  format: typeof FORMAT;
  version: 1;
  /** Which user key wraps the data key. */
  userKeyId: string;
  /** The data key sealed under the user key (base64). */
  wrappedKey: string;
  /** The data key's id (FileCipher.id), to tell which key the files are under. */
  dataKeyId: string;
  createdAt: number;
}

function aad(userKey: string): Buffer {
  return Buffer.from(`${FORMAT} v1|${userKey}`, 'utf8');
}

/** A header for `dataKey` wrapped under `user`. */
export function wrapDataKey(dataKey: Buffer, user: UserKey, createdAt: number): StoreKeyHeader {
  return {
    format: FORMAT,
    version: 1,
    userKeyId: user.id,
    wrappedKey: seal(user.key, dataKey, aad(user.id)).toString('base64'),
    dataKeyId: new FileCipher(dataKey).id,
    createdAt,
  };
}

/** A new data key for a store, wrapped under `user`. */
export function newStoreKey(user: UserKey, createdAt: number): { header: StoreKeyHeader; dataKey: Buffer } {
  const dataKey = newKey();
  return { header: wrapDataKey(dataKey, user, createdAt), dataKey };
}

/** The data key in `header`, unwrapped with `user`; DecryptError when it is not the key that wrapped it. */
export function unwrapDataKey(header: StoreKeyHeader, user: UserKey): Buffer {
  const key = open(user.key, Buffer.from(header.wrappedKey, 'base64'), aad(header.userKeyId));
  if (key.length !== KEY_BYTES) throw new DecryptError('the wrapped data key has the wrong length');
  return key;
}

/** The header of the store in `dir`, or undefined when the store is not encrypted. Throws store_corrupt when unreadable. */
export function readStoreKey(dir: string): StoreKeyHeader | undefined {
  const file = path.join(dir, STORE_KEY_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return parseStoreKey(text, file);
}

export function parseStoreKey(text: string, file: string): StoreKeyHeader {
  let h: Partial<StoreKeyHeader>;
  try {
    h = JSON.parse(text) as Partial<StoreKeyHeader>;
  } catch {
    h = {};
  }
  if (h.format !== FORMAT || h.version !== 1 || typeof h.userKeyId !== 'string' || typeof h.wrappedKey !== 'string') {
    throw new UserFacingError(
      `The memory store is encrypted, but its key header ${file} is damaged, so the store cannot be opened. ` +
        'Nothing was changed. Restore the file from a backup of the store folder.',
      'store_corrupt',
    );
  }
  return h as StoreKeyHeader;
}

/**
 * The file cipher of the store in `dir`: undefined for a plain store; throws store_key_missing
 * when no user key of the header's id is at hand, store_key_wrong when the one at hand does not
 * open the data key. Nothing of the store is read before this succeeds.
 */
export function openStoreCipher(dir: string, keyring: UserKeyring | undefined): { cipher: FileCipher; header: StoreKeyHeader } | undefined {
  const header = readStoreKey(dir);
  if (!header) return undefined;
  const found = keyring?.find(header.userKeyId);
  if (!found) throw keyMissing(dir, header, keyring);
  let dataKey: Buffer;
  try {
    dataKey = unwrapDataKey(header, found.key);
  } catch {
    throw new UserFacingError(
      `The memory store at ${dir} is encrypted, and the key found for it (${found.source}) does not open it: ` +
        'the key or the store key file was changed. Nothing was read or changed. ' +
        'Open it with its recovery key: agent-memory encryption import-recovery-key.',
      'store_key_wrong',
    );
  }
  return { cipher: new FileCipher(dataKey), header };
}

function keyMissing(dir: string, header: StoreKeyHeader, keyring: UserKeyring | undefined): UserFacingError {
  const looked = keyring ? keyring.describeSources() : 'no key source was given';
  return new UserFacingError(
    `The memory store at ${dir} is encrypted, and its key (${header.userKeyId}) is not available here (looked in: ${looked}). ` +
      'Nothing was read or changed. On the machine that encrypted it, run agent-memory encryption export-recovery-key; ' +
      'here, run agent-memory encryption import-recovery-key and give that key (or set AGENT_MEMORY_RECOVERY_KEY).',
    'store_key_missing',
  );
}

/** The header as the bytes written to store.key. */
export function storeKeyBytes(header: StoreKeyHeader): Buffer {
  return Buffer.from(`${JSON.stringify(header, null, 2)}\n`, 'utf8');
}

export { userKeyId };
