/**
 * Replaying the log after the snapshot. A log the store cannot replay (records missing because both snapshots are lost, or a record
 * that fails to apply): the store opens read-only instead of writing over it, with one error
 * that says what happened and what to do, and copies of the unreplayed segments in quarantine/.
 */
import * as path from 'node:path';
import { errorMessage } from '../util/errors';
import { OpLog, type LogReadResult } from './opLog';
import type { Op } from './opCodec';
import { quarantineFile } from './fsutil';
import { plural } from '../text/plural';

/** Copies (not moves: the log is left as it is) of every segment holding records after appliedSeq. */
export function quarantineUnreplayed(dir: string, appliedSeq: number): Kept {
  const segs = OpLog.list(dir);
  const copies: string[] = [];
  try {
    for (let i = 0; i < segs.length; i++) {
      const next = segs[i + 1];
      if (next && next.firstSeq <= appliedSeq + 1) continue;
      copies.push(path.relative(dir, quarantineFile(dir, segs[i]!.file)));
    }
    return { copies };
  } catch (e) {
    return { copies, error: errorMessage(e) };
  }
}

export type Kept = { copies: string[]; error?: string };

export function unreplayableMessage(dir: string, why: string, appliedSeq: number, kept: Kept | undefined): string {
  const copies = !kept
    ? ''
    : kept.error
      ? ` Copies of the unreplayed log segments could not be kept (${kept.error}).`
      : ` Copies of the ${plural(kept.copies.length, 'log segment')} it could not replay are in ${path.join(dir, 'quarantine')}.`;
  return (
    `The memory store at ${dir} cannot replay its operation log: ${why}. ` +
    `It is open read-only, showing the changes up to record ${appliedSeq}; nothing will be written over the log.` +
    copies +
    ` To recover, put a good snapshot.sqlite (with its .crc32 file) from a backup into ${dir} and restart.`
  );
}

/** Applies the records in order; stops at records missing before them or at one that fails to apply. */
export interface Replayed {
  seq: number;
  replayed: number;
  failure?: string;
}

export function replayRecords(r: LogReadResult, snapshotSeq: number, apply: (ops: Op[]) => void): Replayed {
  const first = r.records[0]?.seq;
  if (first !== undefined && first !== snapshotSeq + 1) {
    const failure =
      `records ${snapshotSeq + 1}–${first - 1} are missing (they were in a snapshot that is lost or damaged), ` +
      `so the ${r.records.length} records after them cannot be applied`;
    return { seq: snapshotSeq, replayed: 0, failure };
  }
  let seq = snapshotSeq;
  let replayed = 0;
  for (const rec of r.records) {
    try {
      apply(rec.ops);
    } catch (e) {
      return {
        seq,
        replayed,
        failure: `record ${rec.seq} could not be replayed (${errorMessage(e)}), nor the ${r.lastSeq - rec.seq} after it`,
      };
    }
    replayed++;
    seq = rec.seq;
  }
  return { seq, replayed };
}
