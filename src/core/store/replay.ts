/**
 * Replaying the log after the snapshot. A log the store cannot replay (records missing because both snapshots are lost, or a record
 * that fails to apply): the store opens read-only instead of writing over it, with one error
 * that says what happened and what to do, and copies of the unreplayed segments in quarantine/.
 */
import * as path from 'node:path';
import { errorMessage } from '../util/errors';
import { OpLog, type LogReadResult } from './opLog';
import type { Op } from './opCodec';
import { isReplayable } from './rowNumbers';
import * as fs from 'node:fs';
import { quarantineFile, quarantineOnce } from './fsutil';
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

/**
 * Copies in quarantine/ of the segments holding records set aside after a loss: they stay in the
 * log only until a snapshot covers them. Added to the read's `kept` (or its `keepFailed`).
 */
export function keepSetAside(dir: string, r: LogReadResult, seqs: number[]): void {
  if (!seqs.length) return;
  const segs = OpLog.list(dir);
  try {
    for (let i = 0; i < segs.length; i++) {
      const end = segs[i + 1]?.firstSeq ?? Infinity;
      if (!seqs.some((q) => q >= segs[i]!.firstSeq && q < end)) continue;
      const kept = path.relative(dir, quarantineOnce(dir, path.basename(segs[i]!.file), fs.readFileSync(segs[i]!.file)));
      if (!r.kept.includes(kept)) r.kept.push(kept);
    }
  } catch (e) {
    r.keepFailed = errorMessage(e);
  }
}

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

/** What a replay did: applied records, records set aside after a gap, and the failure that stopped it. */
export interface Replayed {
  /** The last record replayed or set aside: the next write follows it. */
  seq: number;
  replayed: number;
  /** Records after changes that could not be read: applied, and set aside (not safe to apply without them). */
  appliedAfterLoss: number;
  setAside: number;
  /** The seqs of the records set aside (copies of their segments are kept: keepSetAside). */
  setAsideSeqs: number[];
  failure?: string;
}

/**
 * Applies the records in order. Before any loss a record that fails to apply stops the replay (the
 * store opens read-only). After changes that could not be read, each record is applied whole or
 * set aside: set aside when it was written without bound memory row numbers (an earlier version,
 * rowNumbers.ts), or when it fails to apply without what was lost. Either way the record is
 * consumed, so the next write follows the last record in the log.
 */
export function replayRecords(r: LogReadResult, snapshotSeq: number, apply: (ops: Op[]) => void): Replayed {
  if (r.missingBefore) {
    const { from, to } = r.missingBefore;
    const failure =
      `records ${from}–${to} are missing (the snapshot or the log segment that held them is lost or damaged), ` +
      `so the ${r.records.length} records after them cannot be applied`;
    return { seq: snapshotSeq, replayed: 0, appliedAfterLoss: 0, setAside: 0, setAsideSeqs: [], failure };
  }
  const done: Replayed = { seq: snapshotSeq, replayed: 0, appliedAfterLoss: 0, setAside: 0, setAsideSeqs: [] };
  for (let i = 0; i < r.records.length; i++) {
    const rec = r.records[i]!;
    if (r.firstAfterLoss !== undefined && i >= r.firstAfterLoss) {
      if (applyIfSafe(rec.ops, apply)) done.appliedAfterLoss++;
      else done.setAsideSeqs.push(rec.seq);
    } else {
      try {
        apply(rec.ops);
      } catch (e) {
        done.failure = `record ${rec.seq} could not be replayed (${errorMessage(e)}), nor the ${r.lastSeq - rec.seq} after it`;
        done.replayed = i;
        return done;
      }
    }
    done.seq = rec.seq;
  }
  done.setAside = done.setAsideSeqs.length;
  done.replayed = r.records.length - done.setAside;
  return done;
}

function applyIfSafe(ops: Op[], apply: (ops: Op[]) => void): boolean {
  if (!isReplayable(ops)) return false;
  try {
    apply(ops); // one transaction: a record that fails leaves nothing behind
    return true;
  } catch {
    return false;
  }
}

/** How the newest segment of the log was found when nothing after the snapshot could be read from it. */
export type NewestSegment = 'present' | 'gone';

/**
 * One warning for what a damaged log cost, in words a person can act on (docs/storage.md "A
 * damaged log"); undefined when nothing was damaged.
 */
export function logDamageWarning(dir: string, r: LogReadResult, done: Replayed, newest: NewestSegment = 'present'): string | undefined {
  const log = `the operation log of the memory store at ${dir}`;
  const quarantine = path.join(dir, 'quarantine');
  const kept = (n: number) => (r.kept.length ? ` and ${n === 1 ? 'was' : 'were'} set aside in ${quarantine}` : '');
  const keptNote = r.keepFailed ? ` (a copy could not be kept: ${r.keepFailed})` : '';
  const parts: string[] = [];
  if (r.lost)
    parts.push(
      `${capital(log)} is damaged: ${plural(r.lost, 'change')} could not be read${kept(r.lost)}${keptNote}.${afterLoss(r.lost, done)}`,
    );
  if (r.lostAtEnd === 'at-least-one')
    parts.push(`The last change in ${log} could not be read (its bytes are damaged)${kept(1)}${keptNote}.`);
  if (r.lostAtEnd === 'maybe' || newest === 'gone') {
    parts.push(
      `The newest part of ${log} is ${newest === 'gone' ? 'missing' : 'empty'}: changes saved after the last snapshot, if there were any, ` +
        'cannot be read, and how many cannot be told.',
    );
  }
  if (r.interrupted)
    parts.push(
      `The last change in ${log} was cut short while it was being written, so it was never confirmed as saved${r.kept.length ? `; its bytes were set aside in ${quarantine}` : ''}.`,
    );
  if (!parts.length && r.repairedOnly)
    parts.push(`${capital(log)} had damaged bytes, but every change in it could still be read${keptNote}.`);
  return parts.length ? parts.join(' ') : undefined;
}

/** What became of the changes saved after the lost ones. */
function afterLoss(lost: number, done: Replayed): string {
  const n = done.appliedAfterLoss + done.setAside;
  if (!n) return '';
  const it = lost === 1 ? 'it' : 'them';
  const saved = `${plural(n, 'change')} saved after ${it}`;
  const why = `because they could not be applied safely without ${it}`;
  if (!done.setAside) return ` The ${saved} ${n === 1 ? 'was' : 'were'} read and applied.`;
  if (!done.appliedAfterLoss) return ` The ${saved} ${n === 1 ? 'was' : 'were'} set aside too, ${why}.`;
  return ` Of the ${saved}, ${done.appliedAfterLoss} ${done.appliedAfterLoss === 1 ? 'was' : 'were'} read and applied and ${done.setAside} set aside, ${why}.`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
