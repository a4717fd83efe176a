import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import initSqlJs from 'sql.js';
import { Store, SchemaTooNewError } from '../../../src/core/store/store';
import { StoreLockedError } from '../../../src/core/store/lock';
import { tmpDir } from '../../helpers/tmp';

async function openStore(dir: string, extra: Partial<Parameters<typeof Store.open>[0]> = {}) {
  return Store.open({ dir, ...extra });
}

function insertNote(store: Store, n: number): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, ?, ?)`,
      [`id-${n}`, `note number ${n}`, `note number ${n}`, `h${n}`, `d${n}`, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    );
  });
}

function ids(store: Store): string[] {
  return store.all<{ id: string }>('SELECT id FROM memories ORDER BY rid').map((r) => r.id);
}

test('a new store applies the migrations and records them', async () => {
  const dir = tmpDir();
  const store = await openStore(dir);
  const rows = store.all<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
  // Every NNNN_name.sql of migrations/, in order, each recorded once.
  const files = fs
    .readdirSync(path.join(__dirname, '..', '..', '..', 'migrations'))
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort();
  assert.ok(files.length >= 1);
  assert.deepEqual(
    rows.map((r) => r.version),
    files.map((f) => Number(f.slice(0, 4))),
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    files.map((f) => f.slice(5, -4)),
  );
  assert.equal(rows[0]!.name, 'init');
  assert.equal(store.stats().schemaVersion, files.length);
  await store.close();
});

test('committed writes survive close without snapshot (log replay)', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 10; i++) insertNote(a, i);
  await a.close({ snapshot: false });
  assert.equal(fs.existsSync(path.join(dir, 'snapshot.sqlite')), false);
  const b = await openStore(dir);
  assert.equal(ids(b).length, 10);
  const migrations = b.all('SELECT version FROM schema_migrations').length;
  assert.equal(b.stats().replayedRecords, migrations + 10); // one record per migration + 10 writes
  assert.deepEqual(b.integrityCheck(), []);
  await b.close();
});

test('snapshot + later writes: reopen has everything, old segments removed', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 5; i++) insertNote(a, i);
  await a.snapshot();
  for (let i = 5; i < 8; i++) insertNote(a, i);
  await a.snapshot();
  insertNote(a, 8);
  await a.close({ snapshot: false });
  const segs = fs.readdirSync(path.join(dir, 'log'));
  assert.ok(segs.length <= 3, `segments kept: ${segs.join(',')}`);
  const b = await openStore(dir);
  assert.deepEqual(
    ids(b),
    Array.from({ length: 9 }, (_, i) => `id-${i}`),
  );
  assert.equal(b.stats().replayedRecords, 1);
  await b.close();
});

test('the snapshot is a valid SQLite file any SQLite can open', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  insertNote(a, 1);
  await a.close();
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(path.join(dir, 'snapshot.sqlite')));
  assert.equal(db.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
  assert.equal(db.exec('SELECT count(*) FROM memories')[0]!.values[0]![0], 1);
  db.close();
});

test('a torn log tail is dropped with a warning, kept in quarantine, and everything before it stays', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 4; i++) insertNote(a, i);
  await a.close({ snapshot: false });
  const seg = path.join(dir, 'log', fs.readdirSync(path.join(dir, 'log'))[0]!);
  const size = fs.statSync(seg).size;
  fs.truncateSync(seg, size - 7); // tear the last record
  const warnings: string[] = [];
  const b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.deepEqual(ids(b), ['id-0', 'id-1', 'id-2']);
  assert.ok(
    warnings.some((w) => /was cut short while it was being written, so it was never confirmed as saved/.test(w)),
    warnings.join('\n'),
  );
  assert.equal(fs.readdirSync(path.join(dir, 'quarantine')).length, 1);
  insertNote(b, 9); // appends continue after the cut point
  await b.close({ snapshot: false });
  const c = await openStore(dir);
  assert.deepEqual(ids(c), ['id-0', 'id-1', 'id-2', 'id-9']);
  await c.close();
});

test('a corrupt last record (bad checksum) is set aside with a warning; earlier records are kept', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 4; i++) insertNote(a, i);
  await a.close({ snapshot: false });
  const seg = path.join(dir, 'log', fs.readdirSync(path.join(dir, 'log'))[0]!);
  const buf = fs.readFileSync(seg);
  buf[buf.length - 20] ^= 0xff; // flip a byte inside the last record
  fs.writeFileSync(seg, buf);
  const warnings: string[] = [];
  const b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.deepEqual(ids(b), ['id-0', 'id-1', 'id-2']);
  assert.ok(
    warnings.some((w) => /The last change in the operation log .* could not be read \(its bytes are damaged\)/.test(w)),
    warnings.join('\n'),
  );
  await b.close();
});

test('a damaged snapshot falls back to the previous one plus the log', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  insertNote(a, 0);
  await a.snapshot();
  insertNote(a, 1);
  await a.snapshot();
  insertNote(a, 2);
  await a.close({ snapshot: false });
  const snap = path.join(dir, 'snapshot.sqlite');
  const bytes = fs.readFileSync(snap);
  bytes.fill(0, 0, 64); // wreck the header
  fs.writeFileSync(snap, bytes);
  const warnings: string[] = [];
  const b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.deepEqual(ids(b), ['id-0', 'id-1', 'id-2']);
  assert.ok(
    warnings.some((w) => /damaged/.test(w)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) => /previous snapshot/.test(w)),
    warnings.join('\n'),
  );
  await b.close();
});

test('a schema newer than this version knows is refused with a clear error', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  a.transaction((tx) => tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01')"));
  await a.close();
  await assert.rejects(openStore(dir), (e: unknown) => e instanceof SchemaTooNewError && /schema version 99/.test((e as Error).message));
  // The refused open released its lock and changed nothing.
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(path.join(dir, 'snapshot.sqlite')));
  assert.equal(db.exec('SELECT max(version) FROM schema_migrations')[0]!.values[0]![0], 99);
  assert.equal(fs.existsSync(path.join(dir, 'store.lock')), false);
});

test('non-deterministic SQL and async transaction bodies are refused and rolled back', async () => {
  const dir = tmpDir();
  const s = await openStore(dir);
  assert.throws(
    () => s.transaction((tx) => tx.run("INSERT INTO store_meta (key, value) VALUES ('x', CURRENT_TIMESTAMP)")),
    /non-deterministic/,
  );
  assert.throws(
    () =>
      s.transaction(async (tx) => {
        tx.run("INSERT INTO store_meta (key, value) VALUES ('y', '1')");
      }),
    /synchronous/,
  );
  assert.equal(s.get("SELECT value FROM store_meta WHERE key = 'y'"), undefined);
  const seq = s.stats().seq;
  assert.throws(
    () =>
      s.transaction((tx) => {
        tx.run("INSERT INTO store_meta (key, value) VALUES ('z', '1')");
        throw new Error('boom');
      }),
    /boom/,
  );
  assert.equal(s.get("SELECT value FROM store_meta WHERE key = 'z'"), undefined);
  assert.equal(s.stats().seq, seq);
  await s.close();
});

test('one writer per directory: a second open is refused, a stale lock is taken over', async () => {
  const dir = tmpDir();
  const a = await openStore(dir, { purpose: 'window A' });
  await assert.rejects(openStore(dir), (e: unknown) => e instanceof StoreLockedError && /window A/.test((e as Error).message));
  const ro = await openStore(dir, { readOnly: true });
  assert.equal(ro.isReadOnly, true);
  assert.throws(() => ro.transaction((tx) => tx.run("INSERT INTO store_meta VALUES ('a','b')")), /read-only/);
  await ro.close();
  await a.close();
  // A lock left by a process that no longer exists.
  fs.writeFileSync(
    path.join(dir, 'store.lock'),
    JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), procStart: null, token: 'dead', acquiredAt: 'then' }),
  );
  const warnings: string[] = [];
  const b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.ok(warnings.some((w) => /stale lock/.test(w)));
  await b.close();
  // An empty lock file may be one an older version is writing right now: not stale while young…
  const lockFile = path.join(dir, 'store.lock');
  fs.writeFileSync(lockFile, '');
  await assert.rejects(openStore(dir), (e: unknown) => (e as { code?: string }).code === 'store_locked');
  // …but one left long ago by a crash mid-write is.
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(lockFile, old, old);
  const c = await openStore(dir);
  await c.close();
});

test('writes made while a snapshot file is being written land in the new segment and survive', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 3; i++) insertNote(a, i);
  const p = a.snapshot();
  insertNote(a, 3); // during the async file write
  await p;
  insertNote(a, 4);
  await a.close({ snapshot: false });
  const b = await openStore(dir);
  assert.deepEqual(ids(b), ['id-0', 'id-1', 'id-2', 'id-3', 'id-4']);
  await b.close();
});

test('blobs and floats round-trip exactly through log replay', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  const vec = new Float32Array([0.1, -2.5e-8, 3.14159, 1e30]);
  a.transaction((tx) =>
    tx.run('INSERT INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, ?)', [
      's',
      'h',
      4,
      new Uint8Array(vec.buffer),
      'now',
    ]),
  );
  a.transaction((tx) => tx.run("INSERT INTO store_meta (key, value) VALUES ('f', ?)", [String(0.1 + 0.2)]));
  await a.close({ snapshot: false });
  const b = await openStore(dir);
  const row = b.get<{ vector: Uint8Array }>('SELECT vector FROM embeddings')!;
  assert.deepEqual(Array.from(new Float32Array(row.vector.slice().buffer)), Array.from(vec));
  assert.equal(b.get<{ value: string }>("SELECT value FROM store_meta WHERE key='f'")!.value, String(0.1 + 0.2));
  await b.close();
});

test('full-text segments are merged in the background after every N writes, and replay reproduces them', async () => {
  const dir = tmpDir();
  const segments = (s: Store) => Number(s.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts_segdir')!.n);
  const unmerged = await openStore(tmpDir(), { ftsMerge: false });
  for (let i = 0; i < 80; i++) insertNote(unmerged, i);
  await new Promise((r) => setImmediate(r));
  const without = segments(unmerged);
  await unmerged.close();

  let store = await openStore(dir, { ftsMerge: { tables: ['memories_fts'], every: 16 } });
  for (let i = 0; i < 80; i++) {
    insertNote(store, i);
    await new Promise((r) => setImmediate(r)); // one write per macrotask, as the engine serves them
  }
  const merged = segments(store);
  assert.ok(without >= 16, `FTS4 leaves many segments without merging (got ${without})`);
  assert.ok(merged < without / 2, `merging keeps few segments: ${merged} vs ${without}`);
  const matches = store.all<{ docid: number }>(`SELECT docid FROM memories_fts WHERE memories_fts MATCH '"number"'`).length;
  assert.equal(matches, 80);
  await store.close({ snapshot: false });

  store = await openStore(dir, { ftsMerge: false });
  assert.equal(segments(store), merged, 'log replay reproduces the merged index');
  assert.deepEqual(store.integrityCheck(), []);
  assert.equal(store.all(`SELECT docid FROM memories_fts WHERE memories_fts MATCH '"number"'`).length, 80);
  await store.close();
});

test('compactFullTextIndex merges an index of single writes down to one segment per level without losing a document', async () => {
  const store = await openStore(tmpDir(), { ftsMerge: false });
  for (let i = 0; i < 40; i++) insertNote(store, i);
  const before = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts_segdir')!.n);
  const left = await store.compactFullTextIndex({ maxSegments: 1 });
  const perLevel = store.all<{ level: number; n: number }>('SELECT level, count(*) AS n FROM memories_fts_segdir GROUP BY level');
  assert.ok(before >= 8, `single writes leave many segments (${before})`);
  assert.equal(left.memories_fts, perLevel.length);
  assert.ok(
    perLevel.every((l) => l.n === 1),
    JSON.stringify(perLevel),
  );
  assert.ok(perLevel.length <= 3, `${before} segments → ${perLevel.length} levels`);
  assert.equal(store.all(`SELECT docid FROM memories_fts WHERE memories_fts MATCH '"note"'`).length, 40);
  assert.deepEqual(store.integrityCheck(), []);
  await store.close();
});

test('a snapshot is used only when it matches a checksum sidecar; otherwise snapshot.prev + the log, and only then a full integrity check', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  insertNote(a, 0);
  await a.snapshot();
  insertNote(a, 1);
  await a.close(); // snapshot on close
  const snap = path.join(dir, 'snapshot.sqlite');
  assert.match(fs.readFileSync(`${snap}.crc32`, 'utf8'), /^crc32 [0-9a-f]{8} \d+\n$/);
  assert.ok(fs.existsSync(path.join(dir, 'snapshot.prev.sqlite.crc32')), 'the previous snapshot keeps its checksum');

  let b = await openStore(dir);
  assert.equal(b.stats().snapshotVerifiedBy, 'checksum');
  assert.deepEqual(ids(b), ['id-0', 'id-1']);
  await b.close({ snapshot: false });

  // A sidecar that does not match: the snapshot is not trusted; the previous one and the log are used.
  fs.writeFileSync(`${snap}.crc32`, 'crc32 00000000 1\n');
  let warnings: string[] = [];
  b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.equal(b.stats().snapshotVerifiedBy, 'checksum');
  assert.ok(b.stats().snapshotSeq < b.stats().seq, 'the previous snapshot plus the log');
  assert.deepEqual(ids(b), ['id-0', 'id-1']);
  assert.ok(
    warnings.some((w) => /previous snapshot/.test(w)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) => /snapshot\.sqlite is damaged or unverifiable.*kept in quarantine/.test(w)),
    warnings.join('\n'),
  );
  assert.equal(fs.existsSync(snap), false, 'the unverified snapshot is set aside, never to become snapshot.prev');
  await b.close({ snapshot: false });

  // No sidecar matches any snapshot: loaded after a full integrity check, with a warning and a copy in quarantine.
  for (const f of fs.readdirSync(dir)) if (f.endsWith('.crc32')) fs.rmSync(path.join(dir, f));
  const quarantined = fs.readdirSync(path.join(dir, 'quarantine')).length;
  warnings = [];
  b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.equal(b.stats().snapshotVerifiedBy, 'integrity_check');
  assert.deepEqual(ids(b), ['id-0', 'id-1']);
  assert.ok(
    warnings.some((w) => /no snapshot matches its checksum: loaded snapshot\.prev\.sqlite after a full integrity check/.test(w)),
    warnings.join('\n'),
  );
  assert.equal(fs.readdirSync(path.join(dir, 'quarantine')).length, quarantined + 1);
  const prevBytes = fs.readFileSync(path.join(dir, 'snapshot.prev.sqlite'));
  await b.close(); // a new verified snapshot; the unverified one does not replace snapshot.prev
  assert.ok(fs.readFileSync(path.join(dir, 'snapshot.prev.sqlite')).equals(prevBytes));
  b = await openStore(dir);
  assert.equal(b.stats().snapshotVerifiedBy, 'checksum');
  assert.deepEqual(ids(b), ['id-0', 'id-1']);
  await b.close();
});

test('segments the snapshot covers are not read on open (a damaged one is left alone); a fallback to the previous snapshot reads them', async () => {
  const dir = tmpDir();
  const a = await openStore(dir);
  for (let i = 0; i < 4; i++) insertNote(a, i); // segment 1: records 1–4 (no snapshot before it)
  await a.snapshot(); // snapshot at 4; segment 1 is kept for a fallback to an empty database
  insertNote(a, 4);
  await a.close({ snapshot: false });
  const logDir = path.join(dir, 'log');
  const segs = fs.readdirSync(logDir).sort();
  assert.equal(segs.length, 2, segs.join(','));
  // Damage the covered segment's last record: a normal open never looks at it.
  const first = path.join(logDir, segs[0]!);
  const bytes = fs.readFileSync(first);
  bytes[bytes.length - 3]! ^= 0xff;
  fs.writeFileSync(first, bytes);
  const warnings: string[] = [];
  const b = await openStore(dir, { onWarning: (w) => warnings.push(w) });
  assert.deepEqual(ids(b), ['id-0', 'id-1', 'id-2', 'id-3', 'id-4']);
  assert.equal(b.stats().replayedRecords, 1);
  assert.deepEqual(warnings, []);
  await b.close({ snapshot: false });
  assert.ok(fs.readFileSync(first).equals(bytes), 'the covered segment is untouched');

  // Without the snapshot, the store falls back to the log from the start: now the damage is found.
  fs.rmSync(path.join(dir, 'snapshot.sqlite'));
  const fallbackWarnings: string[] = [];
  const c = await openStore(dir, { onWarning: (w) => fallbackWarnings.push(w) });
  assert.deepEqual(ids(c), ['id-0', 'id-1', 'id-2', 'id-4'], 'the damaged record is lost; the next segment is replayed');
  assert.ok(
    fallbackWarnings.some((w) => /1 change could not be read.*The 1 change saved after it was read and applied/.test(w)),
    fallbackWarnings.join('\n'),
  );
  await c.close();
});
