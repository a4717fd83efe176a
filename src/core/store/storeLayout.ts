/**
 * What a store folder must look like before it is opened (docs/durability.md "Odd files"): its
 * snapshot files, lock and log segments are files, its log and quarantine are folders. Something
 * else in one of those places (a folder named snapshot.sqlite, a file named log) is never guessed
 * at or moved: the open fails with an error that names the path and says what to do.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserFacingError } from '../util/errors';
import { CHECKSUM_SUFFIX, SNAPSHOT, SNAPSHOT_PREV } from './snapshotFiles';

const FILES = [SNAPSHOT, SNAPSHOT_PREV, SNAPSHOT + CHECKSUM_SUFFIX, SNAPSHOT_PREV + CHECKSUM_SUFFIX, 'store.lock', 'store.key'];
const FOLDERS = ['log', 'quarantine', 'rekey', 'rekey.tmp'];
const SEGMENT = /^\d{16}\.log$/;

/** Throws `store_corrupt` when one of the store's entries is of the wrong kind. */
export function checkStoreLayout(dir: string): void {
  for (const name of FILES) expect(dir, name, 'file');
  for (const name of FOLDERS) expect(dir, name, 'folder');
  const log = path.join(dir, 'log');
  if (kindOf(log) === 'folder')
    for (const name of fs.readdirSync(log).filter((n) => SEGMENT.test(n))) expect(dir, path.join('log', name), 'file');
}

type Kind = 'file' | 'folder' | 'other' | undefined;

function kindOf(file: string): Kind {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined; // absent (or unreadable: what reads it says why)
  }
  return st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other';
}

function expect(dir: string, name: string, want: 'file' | 'folder'): void {
  const kind = kindOf(path.join(dir, name));
  if (kind === undefined || kind === want) return;
  const is = kind === 'other' ? 'neither a file nor a folder' : `a ${kind}`;
  throw new UserFacingError(
    `The memory store at ${dir} cannot be opened: ${path.join(dir, name)} is ${is}, where the store keeps a ${want}. ` +
      'Move it out of the store folder (the store does not change or delete it) and open the store again.',
    'store_corrupt',
  );
}
