// Store.compactSecurely (docs/durability.md "Snapshots", docs/secrets.md): after text is removed
// from the database, no file of the store — snapshot, previous snapshot, log segments,
// quarantine, freed pages — holds it; the store reopens with the same rows, and writes after
// the compaction are durable in the log that follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { tmpDir } from '../../helpers/tmp';

const GONE = 'kestrel-falcon-osprey-unique-text-9174';
const T = '2026-01-01T00:00:00.000Z';

function insert(store: Store, id: string, content: string): void {
  store.transaction((tx) =>
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, ?, ?)`,
      [id, content, content, `h-${id}`, `d-${id}`, T, T],
    ),
  );
}

function filesHolding(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (fs.readFileSync(p).toString('latin1').includes(needle)) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

test('compactSecurely: removed text is in no file afterwards; the store reopens and keeps later writes', async () => {
  const dir = tmpDir();
  let store = await Store.open({ dir });
  // Many rows, so the removed text sits on pages that become free (not just rewritten).
  for (let i = 0; i < 200; i++) insert(store, `keep-${i}`, `ordinary memory number ${i} about the build`);
  insert(store, 'secret', `the text ${GONE} must leave the disk`);
  await store.snapshot();
  insert(store, 'more', 'written after the first snapshot');
  await store.snapshot();
  fs.mkdirSync(path.join(dir, 'quarantine'), { recursive: true });
  fs.copyFileSync(path.join(dir, 'snapshot.sqlite'), path.join(dir, 'quarantine', 'old-snapshot.sqlite'));
  store.transaction((tx) => tx.run(`UPDATE memories SET content = 'redacted', normalized_content = 'redacted' WHERE id = 'secret'`));
  store.transaction((tx) => tx.run(`DELETE FROM memories WHERE id LIKE 'keep-1%'`));
  assert.ok(filesHolding(dir, GONE).length >= 3, 'snapshot, previous snapshot, quarantine and log hold it');

  const removed = await store.compactSecurely();
  assert.ok(removed >= 3, `removed ${removed}`);
  assert.deepEqual(filesHolding(dir, GONE), []);
  assert.ok(!fs.existsSync(path.join(dir, 'snapshot.prev.sqlite')));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'quarantine')), []);
  assert.deepEqual(store.warnings, []);
  insert(store, 'after', 'written after the compaction');
  const count = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n);
  await store.close({ snapshot: false });

  store = await Store.open({ dir });
  try {
    assert.equal(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n), count);
    assert.equal(store.get<{ content: string }>(`SELECT content FROM memories WHERE id = 'secret'`)?.content, 'redacted');
    assert.ok(store.get(`SELECT 1 AS x FROM memories WHERE id = 'after'`), 'the write after the compaction was replayed from the log');
    assert.equal(Object.values(store.get('PRAGMA integrity_check')!)[0], 'ok');
  } finally {
    await store.close();
  }
  assert.deepEqual(filesHolding(dir, GONE), []);
});
