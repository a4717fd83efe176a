/**
 * Encryption of a store's files (docs/encryption.md): which key a store opens with, and turning
 * encryption on or off crash-safely.
 *
 * Switching (enable, disable) writes the store's new form beside it, in `rekey.tmp/`: a snapshot
 * of the whole database at the current position, a new empty log segment after it, the key header
 * (enabling) and the quarantine copies in the new form; reads it back and checks it; then renames
 * the folder to `rekey/` — the moment the switch happens — and moves its files into place. An
 * open that finds `rekey.tmp/` removes it (the old store is whole); one that finds `rekey/`
 * finishes the moves first (each step can run again). A kill at any point leaves the old store
 * or the new one, never a mix.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileCipher, isSealed } from '../crypto/fileCipher';
import {
  STORE_KEY_FILE,
  newStoreKey,
  openStoreCipher,
  storeKeyBytes,
  unwrapDataKey,
  wrapDataKey,
  readStoreKey,
  type StoreKeyHeader,
} from '../crypto/storeKey';
import type { UserKey, UserKeyring } from '../crypto/userKeys';
import { UserFacingError } from '../util/errors';
import { fsyncDir } from './fsutil';
import { OpLog } from './opLog';
import { codecFor } from './logCodec';
import { CHECKSUM_SUFFIX, SNAPSHOT, SNAPSHOT_PREV, checksumLine } from './snapshotFiles';

export const REKEY_STAGING = 'rekey.tmp';
export const REKEY_READY = 'rekey';
const MANIFEST = 'manifest.json';

interface Manifest {
  /** The new log segment's file name. */
  segment: string;
  /** Whether the new form has a key header (enabling) or none (disabling). */
  encrypted: boolean;
  quarantine: string[];
}

/** How a store is encrypted, for status. */
export interface EncryptionInfo {
  encrypted: boolean;
  userKeyId?: string;
  dataKeyId?: string;
  since?: number;
}

export function encryptionInfo(dir: string): EncryptionInfo {
  const h = readStoreKey(dir);
  return h ? { encrypted: true, userKeyId: h.userKeyId, dataKeyId: h.dataKeyId, since: h.createdAt } : { encrypted: false };
}

/** Whether the folder holds anything of a store yet (a new store may be created encrypted). */
function isNewStore(dir: string): boolean {
  const has = (n: string) => fs.existsSync(path.join(dir, n));
  return !has(SNAPSHOT) && !has(SNAPSHOT_PREV) && !has(STORE_KEY_FILE) && OpLog.list(dir).length === 0;
}

export interface CipherOptions {
  keys?: UserKeyring;
  /** A new store is created encrypted under this key (the engine gives one where a keychain answers). */
  newStoreKey?: () => UserKey | undefined;
  writer: boolean;
}

/**
 * The data key of the store in `dir` before anything else of it is read: a switch interrupted by
 * a kill is finished (writer) or refused (reader), a new store gets its key header when asked to.
 */
export function storeCipherAtOpen(dir: string, o: CipherOptions): FileCipher | undefined {
  settleRekey(dir, o.writer);
  const opened = openStoreCipher(dir, o.keys);
  if (opened) return opened.cipher;
  if (!o.writer || !isNewStore(dir)) return undefined;
  const user = o.newStoreKey?.();
  if (!user) return undefined;
  const { header, dataKey } = newStoreKey(user, Date.now());
  writeDurably(path.join(dir, STORE_KEY_FILE), storeKeyBytes(header));
  fsyncDir(dir);
  return new FileCipher(dataKey);
}

/** An interrupted switch: staging is dropped (the old store is whole), a committed one is finished. */
function settleRekey(dir: string, writer: boolean): void {
  const ready = path.join(dir, REKEY_READY);
  const staging = path.join(dir, REKEY_STAGING);
  if (fs.existsSync(ready)) {
    if (!writer) {
      throw new UserFacingError(
        `The memory store at ${dir} is being switched to or from encryption by the process that owns it. Open it again in a moment.`,
        'store_locked',
      );
    }
    finishRekey(dir);
  }
  if (writer && fs.existsSync(staging)) fs.rmSync(staging, { recursive: true, force: true });
}

function writeDurably(file: string, bytes: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function moveIfThere(from: string, to: string): void {
  if (fs.existsSync(from)) fs.renameSync(from, to);
}

/** Moves a committed switch's files into place; every step can run again after a kill. */
export function finishRekey(dir: string): void {
  const ready = path.join(dir, REKEY_READY);
  const manifest = path.join(ready, MANIFEST);
  if (!fs.existsSync(manifest)) {
    // The manifest is written before the commit (the rename to `ready`) and only the last step
    // below removes it: a kill while `ready` was being removed left the rest of the folder, after
    // every file had been moved. The switch is done; only the leftover goes.
    fs.rmSync(ready, { recursive: true, force: true });
    fsyncDir(dir);
    return;
  }
  const m = JSON.parse(fs.readFileSync(manifest, 'utf8')) as Manifest;
  const logDir = path.join(dir, 'log');
  fs.mkdirSync(logDir, { recursive: true });
  for (const seg of OpLog.list(dir)) if (path.basename(seg.file) !== m.segment) fs.rmSync(seg.file, { force: true });
  moveIfThere(path.join(ready, 'log', m.segment), path.join(logDir, m.segment));
  fsyncDir(logDir);
  fs.rmSync(path.join(dir, SNAPSHOT_PREV), { force: true });
  fs.rmSync(path.join(dir, SNAPSHOT_PREV + CHECKSUM_SUFFIX), { force: true });
  moveIfThere(path.join(ready, SNAPSHOT), path.join(dir, SNAPSHOT));
  moveIfThere(path.join(ready, SNAPSHOT + CHECKSUM_SUFFIX), path.join(dir, SNAPSHOT + CHECKSUM_SUFFIX));
  const quarantine = path.join(dir, 'quarantine');
  for (const name of m.quarantine) moveIfThere(path.join(ready, 'quarantine', name), path.join(quarantine, name));
  if (m.encrypted) moveIfThere(path.join(ready, STORE_KEY_FILE), path.join(dir, STORE_KEY_FILE));
  else keepOldKeyHeader(dir);
  // Vector index files are rebuilt from the embeddings table in the new form.
  fs.rmSync(path.join(dir, 'vectors'), { recursive: true, force: true });
  fsyncDir(dir);
  fs.rmSync(ready, { recursive: true, force: true });
  fsyncDir(dir);
}

/** Disabling: quarantine copies made while encrypted stay encrypted; the header that opens them is kept with them. */
function keepOldKeyHeader(dir: string): void {
  const file = path.join(dir, STORE_KEY_FILE);
  if (!fs.existsSync(file)) return;
  const quarantine = path.join(dir, 'quarantine');
  fs.mkdirSync(quarantine, { recursive: true });
  fs.renameSync(file, path.join(quarantine, `${new Date().toISOString().replace(/[:.]/g, '-')}-${STORE_KEY_FILE}`));
}

/** What a switch needs of the open store. */
export interface RekeyHost {
  dir: string;
  seq: number;
  /** The database's bytes with the snapshot watermark set to `seq` (synchronous). */
  snapshotBytes(seq: number): Uint8Array;
  current: FileCipher | undefined;
}

/** The target of a switch: encrypted under a new data key wrapped by `user`, or plain. */
export type RekeyTarget = { user: UserKey; keys: UserKeyring } | undefined;

/** Crash test hook: called with the step just done (see test/core/store/encryptionKill.test.ts). */
export type RekeyProbe = (step: 'staged' | 'committed' | 'moved') => void;

/**
 * Switches the store in `host.dir` to `target` (synchronously: no write of the store can come
 * in between). Returns the new file cipher (undefined: plain). The caller reopens its log.
 */
export function rekeyStore(host: RekeyHost, target: RekeyTarget, probe?: RekeyProbe): FileCipher | undefined {
  const dir = host.dir;
  const staging = path.join(dir, REKEY_STAGING);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(path.join(staging, 'log'), { recursive: true });
  let cipher: FileCipher | undefined;
  let header: StoreKeyHeader | undefined;
  if (target) {
    const made = newStoreKey(target.user, Date.now());
    header = made.header;
    cipher = new FileCipher(made.dataKey);
  }
  const plain = host.snapshotBytes(host.seq);
  const snapshot = cipher ? cipher.sealFile('snapshot', plain) : Buffer.from(plain.buffer, plain.byteOffset, plain.length);
  writeDurably(path.join(staging, SNAPSHOT), snapshot);
  writeDurably(path.join(staging, SNAPSHOT + CHECKSUM_SUFFIX), Buffer.from(checksumLine(snapshot)));
  const segment = `${String(host.seq + 1).padStart(16, '0')}.log`;
  writeDurably(path.join(staging, 'log', segment), codecFor(cipher).magic);
  if (header) writeDurably(path.join(staging, STORE_KEY_FILE), storeKeyBytes(header));
  const quarantine = restageQuarantine(dir, staging, host.current, cipher);
  const manifest: Manifest = { segment, encrypted: !!cipher, quarantine };
  writeDurably(path.join(staging, MANIFEST), Buffer.from(JSON.stringify(manifest)));
  fsyncDir(path.join(staging, 'log'));
  fsyncDir(staging);
  verifyStaged(staging, plain, cipher, header, target);
  probe?.('staged');
  fs.renameSync(staging, path.join(dir, REKEY_READY));
  fsyncDir(dir);
  probe?.('committed');
  finishRekey(dir);
  probe?.('moved');
  return cipher;
}

/**
 * Quarantine copies in the new form: enabling seals the plain ones (what earlier versions kept);
 * disabling opens the sealed files it can (copies of log segments stay as they are, with the old
 * key header kept beside them). Returns the names restaged.
 */
function restageQuarantine(dir: string, staging: string, from: FileCipher | undefined, to: FileCipher | undefined): string[] {
  const q = path.join(dir, 'quarantine');
  if (!fs.existsSync(q)) return [];
  const out: string[] = [];
  for (const name of fs.readdirSync(q)) {
    const file = path.join(q, name);
    if (!fs.statSync(file).isFile()) continue;
    const raw = fs.readFileSync(file);
    let next: Buffer | undefined;
    if (to && !isSealed(raw) && !isSealedSegment(raw) && !name.endsWith(STORE_KEY_FILE)) next = to.sealFile('quarantine', raw);
    else if (!to && from && isSealed(raw)) next = openAnyKind(from, raw);
    if (!next) continue;
    writeDurably(path.join(staging, 'quarantine', name), next);
    out.push(name);
  }
  if (out.length) fsyncDir(path.join(staging, 'quarantine'));
  return out;
}

function isSealedSegment(raw: Buffer): boolean {
  return raw.length >= 8 && raw.subarray(0, 8).toString('latin1') === 'AMOPLOE1';
}

function openAnyKind(cipher: FileCipher, raw: Buffer): Buffer | undefined {
  for (const kind of ['quarantine', 'snapshot', 'vector-index'] as const) {
    try {
      return Buffer.from(cipher.openFile(kind, raw).plain);
    } catch {
      // another kind, or damaged: kept as it is
    }
  }
  return undefined;
}

/** Reads the staged store back: its snapshot checks and opens to exactly the database's bytes, its header opens with the user key. */
function verifyStaged(
  staging: string,
  plain: Uint8Array,
  cipher: FileCipher | undefined,
  header: StoreKeyHeader | undefined,
  target: RekeyTarget,
): void {
  const fail = (why: string) => {
    fs.rmSync(staging, { recursive: true, force: true });
    return new UserFacingError(`Switching the store's encryption was stopped and nothing was changed: ${why}.`, 'io_error');
  };
  const back = fs.readFileSync(path.join(staging, SNAPSHOT));
  if (checksumLine(back) !== fs.readFileSync(path.join(staging, SNAPSHOT + CHECKSUM_SUFFIX), 'utf8'))
    throw fail('the new snapshot read back differs from what was written');
  const opened = cipher ? Buffer.from(cipher.openFile('snapshot', back).plain) : back;
  if (!opened.equals(Buffer.from(plain.buffer, plain.byteOffset, plain.length))) throw fail('the new snapshot does not hold the database');
  if (header && target) {
    const found = target.keys.find(header.userKeyId);
    if (!found || !unwrapDataKey(header, found.key).equals(unwrapDataKey(header, target.user)))
      throw fail('the key it was encrypted with cannot be found again');
  }
}

/** Rewraps the store's data key under `user` (rotation): one atomic rename of store.key; the files stay as they are. */
export function rewrapStoreKey(dir: string, keys: UserKeyring, user: UserKey): StoreKeyHeader {
  const opened = openStoreCipher(dir, keys);
  const header = opened?.header;
  if (!header) throw new UserFacingError('This memory store is not encrypted, so it has no key to rotate.', 'invalid_input');
  const found = keys.find(header.userKeyId)!;
  const next = wrapDataKey(unwrapDataKey(header, found.key), user, header.createdAt);
  const file = path.join(dir, STORE_KEY_FILE);
  writeDurably(`${file}.tmp`, storeKeyBytes(next));
  fs.renameSync(`${file}.tmp`, file);
  fsyncDir(dir);
  return next;
}
