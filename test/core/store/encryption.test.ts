/**
 * Encryption at rest on real stores (docs/encryption.md): every file a store writes is sealed
 * under its data key, a store without its key (or with a damaged key header) is a clear error and
 * nothing is read or changed, damage in encrypted files costs what it costs in plain ones, and
 * enabling, disabling and rotating keep every memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { encryptionInfo, rewrapStoreKey } from '../../../src/core/store/storeCrypt';
import { isSealed } from '../../../src/core/crypto/fileCipher';
import { formatRecoveryKey } from '../../../src/core/crypto/recoveryKey';
import { tmpDir } from '../../helpers/tmp';
import { fileKeyring } from '../../helpers/keys';
import type { UserKeyring } from '../../../src/core/crypto/userKeys';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { VectorStore } from '../../../src/core/vectorstore/vectorStore';
import { ActiveSpace } from '../../../src/core/vectorstore/activeSpace';
import { EmbedOnWrite } from '../../../src/core/memory/embedOnWrite';
import { MemoryService } from '../../../src/core/memory/memoryService';

const SECRET = 'launch code tangerine-42';

function insertNote(store: Store, n: number): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, ?, ?)`,
      [`id-${n}`, `${SECRET} note ${n}`, `${SECRET} note ${n}`, `h${n}`, `d${n}`, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    );
  });
}

const ids = (store: Store) => store.all<{ id: string }>('SELECT id FROM memories ORDER BY rid').map((r) => r.id);

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Files of the store holding `text` in the clear (UTF-8 or as SQLite keeps it). */
function filesHolding(dir: string, text: string): string[] {
  return filesUnder(dir).filter((f) => fs.readFileSync(f).includes(Buffer.from(text)));
}

async function encryptedStore(keys: UserKeyring, notes = 5): Promise<{ dir: string; store: Store }> {
  const dir = tmpDir();
  const user = keys.create(true).key;
  const store = await Store.open({ dir, keys, newStoreKey: () => user });
  for (let i = 0; i < notes; i++) insertNote(store, i);
  return { dir, store };
}

function snapshotFile(dir: string) {
  return path.join(dir, 'snapshot.sqlite');
}

test('a new store created with a key: every file is sealed, nothing of a memory is in the clear, and it reopens whole', async () => {
  const keys = fileKeyring();
  const { dir, store } = await encryptedStore(keys, 5);
  assert.equal(encryptionInfo(store.dir).encrypted, true);
  await store.snapshot();
  for (let i = 5; i < 8; i++) insertNote(store, i); // some in the log after the snapshot
  await store.close({ snapshot: false });
  assert.ok(isSealed(fs.readFileSync(snapshotFile(dir))), 'the snapshot is sealed');
  for (const seg of fs.readdirSync(path.join(dir, 'log')))
    assert.equal(
      fs
        .readFileSync(path.join(dir, 'log', seg))
        .subarray(0, 8)
        .toString(),
      'AMOPLOE1',
    );
  assert.deepEqual(filesHolding(dir, SECRET), [], 'no file of the store holds the text');
  assert.deepEqual(filesHolding(dir, 'CREATE TABLE'), [], 'not even the schema');
  const again = await Store.open({ dir, keys });
  assert.equal(ids(again).length, 8);
  await again.close();
});

test('without its key, with another key, or with a damaged key header: a clear error, nothing read or changed', async () => {
  const keys = fileKeyring();
  const { dir, store } = await encryptedStore(keys, 3);
  await store.close();
  const before = filesUnder(dir).map((f) => [f, fs.readFileSync(f).toString('base64')]);
  await assert.rejects(
    Store.open({ dir }),
    (e: Error & { code?: string }) => e.code === 'store_key_missing' && /import-recovery-key/.test(e.message),
  );
  await assert.rejects(Store.open({ dir, keys: fileKeyring() }), (e: Error & { code?: string }) => e.code === 'store_key_missing');
  await assert.rejects(
    Store.open({ dir, readOnly: true }),
    (e: Error & { code?: string }) => e.code === 'store_key_missing',
    'a reader too',
  );
  const header = JSON.parse(fs.readFileSync(path.join(dir, 'store.key'), 'utf8')) as { wrappedKey: string };
  const wrapped = Buffer.from(header.wrappedKey, 'base64');
  wrapped[20]! ^= 1;
  fs.writeFileSync(path.join(dir, 'store.key'), JSON.stringify({ ...header, wrappedKey: wrapped.toString('base64') }));
  await assert.rejects(
    Store.open({ dir, keys }),
    (e: Error & { code?: string }) => e.code === 'store_key_wrong' && /Nothing was read or changed/.test(e.message),
  );
  fs.writeFileSync(path.join(dir, 'store.key'), '{ not json');
  await assert.rejects(
    Store.open({ dir, keys }),
    (e: Error & { code?: string }) => e.code === 'store_corrupt' && /key header/.test(e.message),
  );
  fs.rmSync(path.join(dir, 'store.key'));
  await assert.rejects(
    Store.open({ dir, keys }),
    (e: Error & { code?: string }) => e.code === 'store_key_missing' && /no key header/.test(e.message),
  );
  const after = filesUnder(dir)
    .filter((f) => !f.endsWith('store.key'))
    .map((f) => [f, fs.readFileSync(f).toString('base64')]);
  assert.deepEqual(
    after,
    before.filter(([f]) => !f!.endsWith('store.key')),
    'no file was changed, cut or quarantined',
  );
});

test('a flipped bit in an encrypted log record costs that record; a cut last record was never acknowledged', async () => {
  const keys = fileKeyring();
  const { dir, store } = await encryptedStore(keys, 0);
  const logDir = path.join(dir, 'log');
  const seg = () => path.join(logDir, fs.readdirSync(logDir).sort().at(-1)!);
  const sizes: number[] = [fs.statSync(seg()).size];
  for (let i = 0; i < 6; i++) {
    insertNote(store, i);
    sizes.push(fs.statSync(seg()).size);
  }
  await store.close({ snapshot: false });
  const buf = fs.readFileSync(seg());
  buf[sizes[2]! + 40]! ^= 0x04; // inside the third note's sealed payload
  fs.writeFileSync(seg(), buf.subarray(0, buf.length - 3)); // and the last record cut short
  const again = await Store.open({ dir, keys });
  assert.deepEqual(
    ids(again),
    ['id-0', 'id-1', 'id-3', 'id-4'],
    'the damaged record is lost, the rest replayed; the cut one never finished',
  );
  assert.ok(
    again.warnings.some((w) => /could not be read/.test(w)),
    again.warnings.join('\n'),
  );
  assert.ok(fs.readdirSync(path.join(dir, 'quarantine')).length > 0);
  for (const q of fs.readdirSync(path.join(dir, 'quarantine')))
    assert.equal(
      fs.readFileSync(path.join(dir, 'quarantine', q)).includes(Buffer.from(SECRET)),
      false,
      'quarantine copies are still sealed',
    );
  await again.close();
});

test('a flipped bit or a cut in an encrypted snapshot: it is set aside and the previous one plus the log is used', async () => {
  const keys = fileKeyring();
  const { dir, store } = await encryptedStore(keys, 3);
  await store.snapshot();
  insertNote(store, 3);
  await store.snapshot();
  insertNote(store, 4);
  await store.close({ snapshot: false });
  const snap = fs.readFileSync(snapshotFile(dir));
  snap[snap.length - 100]! ^= 0x01;
  fs.writeFileSync(snapshotFile(dir), snap);
  fs.rmSync(`${snapshotFile(dir)}.crc32`); // even without the checksum sidecar's help, GCM finds it
  const a = await Store.open({ dir, keys });
  assert.deepEqual(ids(a), ['id-0', 'id-1', 'id-2', 'id-3', 'id-4']);
  assert.ok(
    a.warnings.some((w) => /does not open with the store's key/.test(w)),
    a.warnings.join('\n'),
  );
  await a.snapshot();
  insertNote(a, 5);
  await a.close({ snapshot: false });
  const whole = fs.readFileSync(snapshotFile(dir));
  fs.writeFileSync(snapshotFile(dir), whole.subarray(0, whole.length - 5000));
  const b = await Store.open({ dir, keys });
  assert.deepEqual(ids(b).length, 6, 'a cut snapshot is set aside too');
  await b.close();
});

test('enabling encrypts a plain store with its older quarantine copies; disabling writes it plain again; no memory is lost', async () => {
  const dir = tmpDir();
  const keys = fileKeyring();
  const plain = await Store.open({ dir, keys });
  for (let i = 0; i < 4; i++) insertNote(plain, i);
  await plain.snapshot();
  insertNote(plain, 4);
  fs.mkdirSync(path.join(dir, 'quarantine'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'quarantine', 'old-copy.bin'), `kept by an older version: ${SECRET}`);
  fs.mkdirSync(path.join(dir, 'vectors'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'vectors', 'x.hnsw'), `plain index ${SECRET}`);
  assert.ok(filesHolding(dir, SECRET).length > 0);
  const user = keys.create(true).key;
  const info = plain.switchEncryption({ user, keys });
  assert.equal(info.encrypted, true);
  insertNote(plain, 5);
  assert.deepEqual(filesHolding(dir, SECRET), [], 'after enabling, nothing of a memory is in the clear');
  assert.deepEqual(
    fs.readdirSync(dir).filter((n) => n.startsWith('rekey')),
    [],
  );
  await plain.close();
  const enc = await Store.open({ dir, keys });
  assert.deepEqual(ids(enc), ['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
  assert.deepEqual(filesHolding(dir, SECRET), []);
  const off = enc.switchEncryption(undefined);
  assert.equal(off.encrypted, false);
  insertNote(enc, 6);
  await enc.close();
  assert.equal(fs.existsSync(path.join(dir, 'store.key')), false);
  assert.ok(fs.readFileSync(path.join(dir, 'quarantine', 'old-copy.bin'), 'utf8').includes(SECRET), 'quarantine copies are plain again');
  const back = await Store.open({ dir });
  assert.equal(ids(back).length, 7, 'opens without any key');
  await back.close();
});

test('rotation rewraps the data key; a recovery key alone opens the store on another machine', async () => {
  const keys = fileKeyring();
  const { dir, store } = await encryptedStore(keys, 2);
  const firstId = encryptionInfo(store.dir).userKeyId!;
  const dataKeyId = encryptionInfo(store.dir).dataKeyId;
  const next = keys.create(true).key;
  const rotated = rewrapStoreKey(store.dir, keys, next);
  assert.equal(rotated.userKeyId, next.id);
  assert.notEqual(rotated.userKeyId, firstId);
  assert.equal(rotated.dataKeyId, dataKeyId, 'the files stay under the same data key');
  insertNote(store, 2);
  await store.close();
  const elsewhere = fileKeyring(undefined, { AGENT_MEMORY_RECOVERY_KEY: formatRecoveryKey(next.key) });
  const opened = await Store.open({ dir, keys: elsewhere });
  assert.equal(ids(opened).length, 3);
  await opened.close();
  const oldOnly = fileKeyring(undefined, { AGENT_MEMORY_RECOVERY_KEY: formatRecoveryKey(keys.find(firstId)!.key.key) });
  await assert.rejects(Store.open({ dir, keys: oldOnly }), (e: Error & { code?: string }) => e.code === 'store_key_missing');
});

test('a switch interrupted before it is committed leaves the old store; after, the next open finishes it', async () => {
  const keys = fileKeyring();
  for (const stopAt of ['staged', 'committed'] as const) {
    const dir = tmpDir();
    const store = await Store.open({ dir, keys });
    for (let i = 0; i < 3; i++) insertNote(store, i);
    const user = keys.current()?.key ?? keys.create(true).key;
    assert.throws(() =>
      store.switchEncryption({ user, keys }, (step) => {
        if (step === stopAt) throw new Error(`killed after ${step}`);
      }),
    );
    await store.close({ snapshot: false });
    const again = await Store.open({ dir, keys });
    assert.deepEqual(ids(again), ['id-0', 'id-1', 'id-2']);
    assert.equal(encryptionInfo(again.dir).encrypted, stopAt === 'committed', `stopped after ${stopAt}`);
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.startsWith('rekey')),
      [],
    );
    await again.close();
  }
});

test('the vector index file of an encrypted store is sealed, opens from the file again, and is rebuilt from the store when flipped', async () => {
  const keys = fileKeyring();
  const user = keys.create(true).key;
  const dir = tmpDir();
  const embedder = new HashEmbedder({ dimension: 64 });
  let store = await Store.open({ dir, keys, newStoreKey: () => user });
  let vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
  const ingest = new EmbedOnWrite(store, new MemoryService(store, { projectId: 'p' }), new ActiveSpace(embedder, vectors));
  for (let i = 0; i < 12; i++) await ingest.create({ content: `${SECRET}: vector note ${i} about topic ${i * 7}` });
  await vectors.whenReady(); // the first index is built in the background, then saved
  await vectors.save();
  await store.close();
  const files = fs.readdirSync(path.join(dir, 'vectors')).map((f) => path.join(dir, 'vectors', f));
  const index = files.filter((f) => f.endsWith('.hnsw'));
  assert.equal(index.length, 1, `one index file: ${files.join(', ')}`);
  assert.ok(isSealed(fs.readFileSync(index[0]!)), 'the index file is sealed');

  store = await Store.open({ dir, keys });
  vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
  assert.equal(vectors.stats().openedFrom, 'file', 'opened from the sealed file with the store key');
  assert.equal(vectors.stats().size, 12);
  await store.close();

  const bytes = fs.readFileSync(index[0]!);
  bytes[bytes.length - 40]! ^= 0x01;
  fs.writeFileSync(index[0]!, bytes);
  store = await Store.open({ dir, keys });
  vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
  await vectors.whenReady();
  assert.equal(vectors.stats().openedFrom, 'rebuild', 'a damaged sealed index is rebuilt from the store, never trusted');
  assert.equal(vectors.stats().size, 12);
  await store.close();
});

test('a kill while the finished switch removed its folder (manifest gone, a file left): the store opens, switched', async () => {
  const keys = fileKeyring();
  const dir = tmpDir();
  const store = await Store.open({ dir, keys });
  for (let i = 0; i < 3; i++) insertNote(store, i);
  store.switchEncryption({ user: keys.current()?.key ?? keys.create(true).key, keys });
  await store.close({ snapshot: false });
  // What a kill during the last step's recursive removal leaves: the folder, without its manifest.
  fs.mkdirSync(path.join(dir, 'rekey', 'quarantine'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'rekey', 'quarantine', 'left.bin'), 'x');
  const again = await Store.open({ dir, keys });
  assert.deepEqual(ids(again), ['id-0', 'id-1', 'id-2']);
  assert.equal(encryptionInfo(again.dir).encrypted, true);
  assert.deepEqual(
    fs.readdirSync(dir).filter((n) => n.startsWith('rekey')),
    [],
  );
  await again.close();
});
