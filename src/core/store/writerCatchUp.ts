/**
 * A store opened read-only because the disk was full becomes the writer once space is back:
 * take the lock, apply what another writer may have logged meanwhile, and open the log for
 * appending.
 */
import { UserFacingError } from '../util/errors';
import { StoreLock } from './lock';
import { OpLog } from './opLog';
import { keepSetAside, logDamageWarning, replayRecords } from './replay';
import type { Op } from './opCodec';
import type { StoreFs } from './storeFs';
import type { LogCodec } from './logCodec';

export interface WriterState {
  dir: string;
  sfs: StoreFs;
  purpose: string | undefined;
  /** The last record this process has applied. */
  seq: number;
  codec: LogCodec;
}

export function becomeWriter(
  s: WriterState,
  apply: (ops: Op[]) => void,
  warn: (message: string) => void,
): { lock: StoreLock; log: OpLog; seq: number } | { lockedBy: string } {
  let lock: StoreLock;
  try {
    lock = StoreLock.acquire(s.dir, s.purpose);
  } catch (e) {
    if (e instanceof UserFacingError && e.code === 'store_locked') return { lockedBy: e.message };
    throw e;
  }
  try {
    const log = new OpLog(s.dir, s.sfs, { codec: s.codec });
    const r = log.read(s.seq, { repair: true });
    if (r.missingBefore) throw new Error('the log changed under this reader (a snapshot removed records): reopen the store');
    const done = replayRecords(r, s.seq, apply);
    keepSetAside(s.dir, r, done.setAsideSeqs);
    const damage = logDamageWarning(s.dir, r, done);
    if (damage) warn(damage);
    if (done.failure) throw new Error(`the log written meanwhile cannot be replayed: ${done.failure}; reopen the store`);
    log.openForAppend(done.seq + 1);
    return { lock, log, seq: done.seq };
  } catch (e) {
    lock.release();
    throw e;
  }
}
