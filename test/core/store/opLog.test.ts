/**
 * The op log under injected disk faults (test/fixtures/faultFs.ts): a failed append never leaves
 * a frame later records would follow, and a damaged record mid-log is skipped: reading resumes at
 * the next intact record and the loss is counted in changes (test/core/store/logDamage.test.ts
 * replays such logs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AppendError, OpLog } from '../../../src/core/store/opLog';
import { FaultFs } from '../../fixtures/faultFs';
import { tmpDir } from '../../helpers/tmp';

const rec = (seq: number) => ({ seq, ops: [{ sql: 'INSERT INTO t VALUES (?, ?)', params: [seq, `value ${seq} ${'x'.repeat(200)}`] }] });

function segmentFile(dir: string): string {
  const segs = fs.readdirSync(path.join(dir, 'log'));
  assert.equal(segs.length, 1);
  return path.join(dir, 'log', segs[0]!);
}

function appendFails(log: OpLog, seq: number): AppendError {
  let err: unknown;
  try {
    log.append(rec(seq));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof AppendError, `append ${seq} should fail, got ${String(err)}`);
  return err;
}

test('a short write then ENOSPC is cut back: the next record follows the last good one and every record reads back', () => {
  const dir = tmpDir();
  const ffs = new FaultFs();
  const log = new OpLog(dir, ffs);
  log.openForAppend(1);
  log.append(rec(1));
  const good = fs.statSync(segmentFile(dir)).size;
  ffs.inject({ op: 'write', code: 'ENOSPC', partial: 0.5, file: /\.log$/ });
  const err = appendFails(log, 2);
  assert.equal((err.failure.error as NodeJS.ErrnoException).code, 'ENOSPC');
  assert.deepEqual([err.failure.repaired, err.failure.stateUnknown], [true, false]);
  assert.equal(fs.statSync(segmentFile(dir)).size, good, 'the partial frame is gone');
  log.append(rec(2)); // the same seq, now acknowledged
  log.append(rec(3));
  log.close();
  const r = new OpLog(dir).read(0);
  assert.deepEqual(
    r.records.map((x) => x.seq),
    [1, 2, 3],
  );
  assert.deepEqual([r.lost, r.lostAtEnd, r.interrupted, r.repairedOnly, r.kept], [0, 'none', false, false, []], 'nothing damaged');
});

test('EIO from fdatasync: the record is cut off (state unknown is reported) and does not come back on read', () => {
  const dir = tmpDir();
  const ffs = new FaultFs();
  const log = new OpLog(dir, ffs);
  log.openForAppend(1);
  log.append(rec(1));
  ffs.inject({ op: 'fdatasync', code: 'EIO' });
  const err = appendFails(log, 2);
  assert.deepEqual([err.failure.repaired, err.failure.stateUnknown], [true, true]);
  log.close();
  assert.deepEqual(
    new OpLog(dir).read(0).records.map((x) => x.seq),
    [1],
  );
});

test('when the cut fails too, the segment is sealed: no append follows the failed bytes', () => {
  const dir = tmpDir();
  const ffs = new FaultFs();
  const log = new OpLog(dir, ffs);
  log.openForAppend(1);
  log.append(rec(1));
  ffs.inject({ op: 'fdatasync', code: 'EIO' }).inject({ op: 'ftruncate', code: 'EIO' });
  const err = appendFails(log, 2);
  assert.deepEqual([err.failure.repaired, err.failure.stateUnknown], [false, true]);
  assert.equal(log.writable, false);
  assert.throws(() => log.append(rec(2)), /not open/);
  log.restart(2); // what the store does after its verified snapshot
  log.append(rec(2));
  log.close();
  assert.equal(fs.readdirSync(path.join(dir, 'log')).length, 2);
});

test('one damaged record mid-log: reading resumes at the next intact record, the loss is counted in changes (not bytes), a copy is kept', () => {
  const dir = tmpDir();
  const log = new OpLog(dir);
  log.openForAppend(1);
  const offsets: number[] = [];
  for (let s = 1; s <= 10; s++) {
    offsets.push(log.activeSegmentBytes);
    log.append(rec(s));
  }
  log.close();
  const file = segmentFile(dir);
  const bytes = fs.readFileSync(file);
  bytes[offsets[3]! + 20]! ^= 0x10; // inside record 4's payload
  fs.writeFileSync(file, bytes);
  const r = new OpLog(dir).read(0);
  assert.deepEqual(
    r.records.map((x) => x.seq),
    [1, 2, 3, 5, 6, 7, 8, 9, 10],
  );
  assert.equal(r.lost, 1);
  assert.equal(r.firstAfterLoss, 3, 'records from the 4th read on follow the loss');
  assert.equal(r.lostAtEnd, 'none');
  const kept = fs.readdirSync(path.join(dir, 'quarantine'));
  assert.equal(kept.length, 1);
  assert.ok(fs.readFileSync(path.join(dir, 'quarantine', kept[0]!)).equals(bytes), 'a copy of the damaged segment is kept');
  assert.ok(fs.readFileSync(file).equals(bytes), 'the segment stays: its later records were read');
  // Read again (no snapshot in between): the same records, and no second copy.
  assert.deepEqual(new OpLog(dir).read(0).records.length, 9);
  assert.equal(fs.readdirSync(path.join(dir, 'quarantine')).length, 1);
});

test('a read-only reader of a damaged log changes nothing on disk', () => {
  const dir = tmpDir();
  const log = new OpLog(dir);
  log.openForAppend(1);
  for (let s = 1; s <= 5; s++) log.append(rec(s));
  log.close();
  const file = segmentFile(dir);
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 5]! ^= 0xff;
  fs.writeFileSync(file, bytes);
  const r = new OpLog(dir, undefined, { create: false }).read(0, { repair: false });
  assert.deepEqual(
    r.records.map((x) => x.seq),
    [1, 2, 3, 4],
  );
  assert.equal(r.lostAtEnd, 'at-least-one', 'the last record is damaged');
  assert.deepEqual(r.kept, []);
  assert.ok(fs.readFileSync(file).equals(bytes));
  assert.equal(fs.existsSync(path.join(dir, 'quarantine')), false);
});
