/**
 * Snapshots written straight from the database's in-memory file (src/core/store/liveFile.ts)
 * instead of a db.export() copy: the bytes are a valid, complete SQLite file that matches the
 * checksum; the path is used for new and reopened stores; a file that outgrows its reserved
 * storage falls back to export() with a warning and loses nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { Store } from '../../../src/core/store/store';
import { changeCounter, openOnStorage, reserveFor } from '../../../src/core/store/liveFile';
import { tmpDir } from '../../helpers/tmp';

function insertNotes(store: Store, from: number, n: number, size = 20): void {
  store.transaction((tx) => {
    for (let i = from; i < from + n; i++) {
      tx.run(
        `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
         VALUES (?, 'p', ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        [`id-${i}`, `note ${i} ${'x'.repeat(size)}`, `note ${i}`, `h${i}`, `d${i}`],
      );
    }
  });
}

function count(store: Store): number {
  return Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n);
}

/** The snapshot file, opened by a plain sql.js: integrity and its rows. */
async function readSnapshot(dir: string): Promise<{ ok: unknown; n: number; seq: string }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(path.join(dir, 'snapshot.sqlite')));
  try {
    return {
      ok: db.exec('PRAGMA integrity_check')[0]!.values[0]![0],
      n: Number(db.exec('SELECT count(*) FROM memories')[0]!.values[0]![0]),
      seq: String(db.exec("SELECT value FROM store_meta WHERE key = 'log_seq'")[0]!.values[0]![0]),
    };
  } finally {
    db.close();
  }
}

test('sql.js takes the reserved storage as the database file, and commits land in it', async () => {
  const SQL = await initSqlJs();
  const seed = new SQL.Database();
  seed.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
  const bytes = seed.export();
  seed.close();
  const storage = new Uint8Array(bytes.length * 4);
  storage.set(bytes);
  const { db, live } = openOnStorage(SQL, storage, bytes.length);
  try {
    assert.ok(live, 'MEMFS kept our storage');
    const before = changeCounter(storage);
    db.exec('INSERT INTO t VALUES (2)');
    assert.notEqual(changeCounter(storage), before, 'the commit moved the change counter in our storage');
    // Grows within the reserve: the new pages are written into the same storage.
    db.exec(`INSERT INTO t VALUES (randomblob(${bytes.length}))`);
    const size = Number(db.exec('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()')[0]!.values[0]![0]);
    assert.ok(size > bytes.length && size <= storage.length);
    // The bytes in our storage are the whole, current database.
    const copy = new SQL.Database(storage.slice(0, size));
    try {
      assert.equal(copy.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
      assert.deepEqual(copy.exec('SELECT count(*), sum(length(x)) FROM t')[0]!.values[0], [3, 2 + bytes.length]);
    } finally {
      copy.close();
    }
  } finally {
    db.close();
  }
  assert.equal(reserveFor(0), 256 * 1024 * 1024);
  assert.equal(reserveFor(300 * 1024 * 1024), 600 * 1024 * 1024);
});

test('snapshots of a new and of a reopened store are written from the live file: valid, complete, checksummed', async () => {
  const dir = tmpDir('am-live-');
  const a = await Store.open({ dir });
  insertNotes(a, 0, 50);
  await a.snapshot();
  assert.equal(a.stats().lastSnapshotFrom, 'live-file');
  assert.deepEqual(await readSnapshot(dir), { ok: 'ok', n: 50, seq: String(a.stats().seq) });
  // Writes while the file is fsynced land in the new log segment.
  const p = (insertNotes(a, 50, 500, 400), a.snapshot());
  insertNotes(a, 550, 10);
  await p;
  assert.equal(a.stats().lastSnapshotFrom, 'live-file');
  assert.equal((await readSnapshot(dir)).n, 550);
  await a.close({ snapshot: false });

  const b = await Store.open({ dir });
  assert.equal(b.stats().snapshotVerifiedBy, 'checksum');
  assert.equal(count(b), 560);
  insertNotes(b, 560, 5);
  await b.close(); // snapshot on close
  assert.equal(b.stats().lastSnapshotFrom, 'live-file');
  const c = await Store.open({ dir });
  assert.equal(c.stats().snapshotVerifiedBy, 'checksum');
  assert.equal(c.stats().replayedRecords, 0);
  assert.equal(count(c), 565);
  assert.deepEqual(c.integrityCheck(), []);
  await c.close({ snapshot: false });
});

test('a database that outgrows its reserved storage falls back to export(), with a warning, losing nothing', async () => {
  const dir = tmpDir('am-live-');
  const warnings: string[] = [];
  // No spare room at all: the first growth makes MEMFS copy the file into storage of its own.
  const a = await Store.open({ dir, fileReserve: (n) => n, onWarning: (w) => warnings.push(w) });
  insertNotes(a, 0, 300, 300);
  await a.snapshot();
  assert.equal(a.stats().lastSnapshotFrom, 'export');
  assert.ok(
    warnings.some((w) => /copy the whole database/.test(w)),
    warnings.join('\n'),
  );
  insertNotes(a, 300, 20);
  await a.close();
  assert.equal(a.stats().lastSnapshotFrom, 'export');
  assert.deepEqual(await readSnapshot(dir), { ok: 'ok', n: 320, seq: String(a.stats().seq) });
  const b = await Store.open({ dir });
  assert.equal(count(b), 320);
  insertNotes(b, 320, 1);
  await b.snapshot();
  assert.equal(b.stats().lastSnapshotFrom, 'live-file', 'reopening restores the direct write');
  await b.close({ snapshot: false });
});

test('closing a store frees its in-memory file at once (a process that reopens a store does not hold two)', async () => {
  const dir = tmpDir('am-live-');
  const a = await Store.open({ dir });
  insertNotes(a, 0, 10);
  const before = process.memoryUsage().arrayBuffers;
  await a.close();
  const freed = before - process.memoryUsage().arrayBuffers;
  // The reserved storage (256 MiB of address space for a small store) is gone, not left to a later GC.
  assert.ok(freed >= 256 * 1024 * 1024, `freed ${freed} bytes`);
  const b = await Store.open({ dir });
  assert.equal(count(b), 10);
  await b.close();
});
