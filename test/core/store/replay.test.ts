/**
 * A log the store cannot replay: both snapshots lost (the records they held are gone from the
 * log), or a record that fails to apply. The store never opens writable over it: read-only, ONE
 * clear error, every unreplayed segment copied to quarantine/, the log left as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { OpLog } from '../../../src/core/store/opLog';
import { UserFacingError } from '../../../src/core/util/errors';
import { tmpDir } from '../../helpers/tmp';

function insert(store: Store, n: number): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [`id-${n}`, `note ${n}`, `note ${n}`, `h${n}`, `d${n}`],
    );
  });
}

function logFiles(dir: string): Map<string, Buffer> {
  const d = path.join(dir, 'log');
  return new Map(fs.readdirSync(d).map((f) => [f, fs.readFileSync(path.join(d, f))]));
}

test('both snapshots lost: read-only with one clear error, unreplayed segments in quarantine, the log untouched, even after close', async () => {
  const dir = tmpDir();
  const a = await Store.open({ dir });
  for (let i = 0; i < 10; i++) insert(a, i);
  await a.snapshot();
  for (let i = 10; i < 20; i++) insert(a, i);
  await a.snapshot(); // the segment before the first snapshot is removed now
  for (let i = 20; i < 120; i++) insert(a, i);
  await a.close({ snapshot: false });
  for (const f of fs.readdirSync(dir)) if (f.startsWith('snapshot')) fs.rmSync(path.join(dir, f));
  const before = logFiles(dir);

  const warnings: string[] = [];
  const states: string[] = [];
  const b = await Store.open({ dir, onWarning: (w) => warnings.push(w), onHealthChange: (h) => states.push(h.state) });
  assert.equal(b.isReadOnly, true);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /cannot replay its operation log: records 1–\d+ are missing/);
  assert.match(warnings[0]!, /open read-only/);
  assert.match(warnings[0]!, /quarantine/);
  assert.equal(b.health().state, 'read_only');
  assert.equal(b.health().detail, warnings[0]);
  assert.throws(
    () => insert(b, 999),
    (e: unknown) => e instanceof UserFacingError && e.code === 'store_read_only' && /cannot replay/.test(e.message),
  );
  assert.equal(Number(b.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n), 0, 'the schema is there, empty');
  await b.close();
  const kept = fs.readdirSync(path.join(dir, 'quarantine')).filter((f) => f.endsWith('.log'));
  assert.equal(kept.length, before.size);
  assert.deepEqual(logFiles(dir), before, 'no segment deleted or changed');
  assert.equal(fs.existsSync(path.join(dir, 'snapshot.sqlite')), false, 'no snapshot written over it');
  assert.equal(fs.existsSync(path.join(dir, 'store.lock')), false);
});

test('a record that fails to apply: read-only at the record before it, one error that names it', async () => {
  const dir = tmpDir();
  const a = await Store.open({ dir });
  for (let i = 0; i < 3; i++) insert(a, i);
  const seq = a.stats().seq;
  await a.close({ snapshot: false });
  const log = new OpLog(dir);
  log.openForAppend(seq + 1);
  log.append({ seq: seq + 1, ops: [{ sql: 'INSERT INTO no_such_table VALUES (?)', params: [1] }] });
  log.close();
  const warnings: string[] = [];
  const b = await Store.open({ dir, onWarning: (w) => warnings.push(w) });
  assert.equal(b.isReadOnly, true);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, new RegExp(`record ${seq + 1} could not be replayed \\(no such table: no_such_table\\)`));
  assert.equal(b.stats().seq, seq);
  assert.equal(Number(b.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n), 3);
  await b.close();
});
