/**
 * What people see when the disk fails under the store (faults injected through
 * test/fixtures/faultFs.ts): clear disk_full / io_error errors and health states, writes that
 * resume by themselves, one warning per problem, a close that does not fail, and after a
 * restart every acknowledged write present and no failed write resurrected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store, type StoreHealth, type StoreOptions } from '../../../src/core/store/store';
import { newKey } from '../../../src/core/crypto/aead';
import { formatRecoveryKey } from '../../../src/core/crypto/recoveryKey';
import { userKey } from '../../../src/core/crypto/userKeys';
import { fileKeyring } from '../../helpers/keys';
import { UserFacingError } from '../../../src/core/util/errors';
import { FaultFs } from '../../fixtures/faultFs';
import { tmpDir } from '../../helpers/tmp';
import { until } from '../../helpers/until';

function insert(store: Store, id: string): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [id, `note ${id}`, `note ${id}`, `h-${id}`, `d-${id}`],
    );
  });
}

function insertFails(store: Store, id: string, code: string): void {
  assert.throws(
    () => insert(store, id),
    (e: unknown) => e instanceof UserFacingError && e.code === code && !/internal/i.test(e.message),
    `write ${id} should fail with ${code}`,
  );
}

function ids(store: Store): string[] {
  return store.all<{ id: string }>('SELECT id FROM memories ORDER BY rid').map((r) => r.id);
}

/**
 * Each of these runs on a plain store and on one encrypted at rest (docs/encryption.md): the same
 * faults, the same outcomes (the keys of one store stay with it through its reopens).
 */
const VARIANTS: { name: string; opts: () => Partial<StoreOptions> }[] = [
  { name: '', opts: () => ({}) },
  {
    name: ' (encrypted store)',
    opts: () => {
      const user = userKey(newKey());
      return { keys: fileKeyring(undefined, { AGENT_MEMORY_RECOVERY_KEY: formatRecoveryKey(user.key) }), newStoreKey: () => user };
    },
  },
];

for (const v of VARIANTS) {
  test(`ENOSPC mid-append: disk_full error and health, writes refused, then resume by themselves; nothing acknowledged is lost${v.name}`, async () => {
    const k = v.opts();
    const dir = tmpDir();
    const ffs = new FaultFs();
    const states: StoreHealth['state'][] = [];
    const store = await Store.open({ ...k, dir, fs: ffs, recoveryIntervalMs: 20, onHealthChange: (h) => states.push(h.state) });
    assert.equal(!!store.fileCipher, v.name !== '', 'the store is encrypted in the encrypted variant only');
    for (let i = 0; i < 5; i++) insert(store, `before-${i}`);
    ffs.inject({ op: 'write', code: 'ENOSPC', partial: 0.4, file: /\.log$/ });
    ffs.diskFull = true;
    insertFails(store, 'failed-0', 'disk_full');
    assert.equal(store.health().state, 'disk_full');
    assert.match(store.health().detail, /disk .* is full/);
    for (let i = 1; i < 30; i++) insertFails(store, `failed-${i}`, 'disk_full');
    assert.equal(store.warnings.filter((w) => /full/.test(w)).length, 1, store.warnings.join('\n'));
    ffs.clear(); // space is back
    await until('the store to be healthy again', () => store.health().state === 'ok', { timeoutMs: 5000, intervalMs: 10 });
    for (let i = 0; i < 30; i++) insert(store, `after-${i}`);
    await store.close({ snapshot: false }); // as good as a crash for the log: nothing more is written
    assert.deepEqual(states, ['disk_full', 'ok']);

    const warnings: string[] = [];
    const again = await Store.open({ ...k, dir, onWarning: (w) => warnings.push(w) });
    const expected = [...Array.from({ length: 5 }, (_, i) => `before-${i}`), ...Array.from({ length: 30 }, (_, i) => `after-${i}`)];
    assert.deepEqual(ids(again), expected);
    assert.deepEqual(warnings, [], 'no checksum mismatch or sequence gap after the failed appends');
    assert.deepEqual(again.integrityCheck(), []);
    await again.close();
  });

  test(`EIO from fdatasync: io_error, writes paused until a verified snapshot and a new segment; the failed write never comes back${v.name}`, async () => {
    const k = v.opts();
    for (const cutFails of [false, true]) {
      const dir = tmpDir();
      const ffs = new FaultFs();
      const store = await Store.open({ ...k, dir, fs: ffs, recoveryIntervalMs: 60_000 });
      insert(store, 'a');
      ffs.inject({ op: 'fdatasync', code: 'EIO', file: /\.log$/ });
      if (cutFails) ffs.inject({ op: 'ftruncate', code: 'EIO' });
      insertFails(store, 'lost', 'io_error');
      assert.equal(store.health().state, 'io_error');
      insertFails(store, 'refused', 'io_error'); // state unknown: nothing is acknowledged meanwhile
      const snapshotsBefore = store.stats().snapshotSeq;
      assert.equal(await store.recover(), true);
      assert.equal(store.health().state, 'ok');
      assert.ok(store.stats().snapshotSeq > snapshotsBefore, 'a snapshot re-established the durable state');
      insert(store, 'b');
      await store.close({ snapshot: false });
      const again = await Store.open({ ...k, dir });
      assert.deepEqual(ids(again), ['a', 'b'], `cut ${cutFails ? 'failed' : 'worked'}`);
      await again.close();
    }
  });

  test(`EIO from fdatasync and a failing cut, then a crash before the store recovered: the failed write still does not come back${v.name}`, async () => {
    const k = v.opts();
    const dir = tmpDir();
    const ffs = new FaultFs();
    const store = await Store.open({ ...k, dir, fs: ffs, recoveryIntervalMs: 60_000 });
    insert(store, 'a');
    ffs.inject({ op: 'fdatasync', code: 'EIO', file: /\.log$/ }).inject({ op: 'ftruncate', code: 'EIO' });
    insertFails(store, 'lost', 'io_error');
    await store.close({ snapshot: false }); // the process dies before recovery: no snapshot, the segment as it is
    const warnings: string[] = [];
    const again = await Store.open({ ...k, dir, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(ids(again), ['a']);
    assert.ok(
      warnings.some((w) => /never confirmed as saved/.test(w)),
      warnings.join('\n'),
    );
    await again.close();
  });

  test(`snapshots on a full disk: one warning however often they are tried, a temp file never left behind, close does not fail${v.name}`, async () => {
    const k = v.opts();
    const dir = tmpDir();
    const ffs = new FaultFs();
    const store = await Store.open({ ...k, dir, fs: ffs });
    insert(store, 'a');
    ffs.inject({ op: 'write', code: 'ENOSPC', partial: 0.5, file: /snapshot/, times: 1000 });
    await assert.rejects(store.snapshot(), (e: unknown) => (e as UserFacingError).code === 'disk_full');
    for (let i = 0; i < 45; i++) await store.snapshot().catch(() => undefined);
    assert.equal(store.snapshotDue({ logBytes: 0, maxAgeMs: 0 }), false, 'snapshots back off');
    assert.equal(store.health().state, 'disk_full');
    insert(store, 'b'); // the log still takes writes
    assert.equal(store.warnings.filter((w) => /snapshot/.test(w)).length, 1, store.warnings.join('\n'));
    assert.equal(fs.existsSync(path.join(dir, 'snapshot.sqlite.tmp')), false);
    await store.close();
    const again = await Store.open({ ...k, dir });
    assert.deepEqual(ids(again), ['a', 'b']);
    await again.close();
  });

  test(`disk full at open: the store opens read-only-for-now with health disk_full, reads work, and it becomes the writer once space is back${v.name}`, async () => {
    const k = v.opts();
    const dir = tmpDir();
    const first = await Store.open({ ...k, dir });
    insert(first, 'a');
    await first.close(); // snapshot: the log holds nothing the snapshot lacks
    fs.rmSync(path.join(dir, 'log'), { recursive: true }); // so opening must write a new segment
    const ffs = new FaultFs();
    ffs.diskFull = true;
    const store = await Store.open({ ...k, dir, fs: ffs, recoveryIntervalMs: 20 });
    assert.equal(store.health().state, 'disk_full');
    assert.equal(store.isReadOnly, false, 'not read-only for good');
    assert.deepEqual(ids(store), ['a']);
    insertFails(store, 'x', 'disk_full');
    ffs.clear();
    await until('the store to be healthy again', () => store.health().state === 'ok', { timeoutMs: 5000, intervalMs: 10 });
    insert(store, 'b');
    await store.close({ snapshot: false });
    const again = await Store.open({ ...k, dir });
    assert.deepEqual(ids(again), ['a', 'b']);
    await again.close();
  });
}

test('a new store on a full disk: a clear disk_full error, not a raw ENOSPC', async () => {
  const ffs = new FaultFs();
  ffs.diskFull = true;
  await assert.rejects(
    Store.open({ dir: tmpDir(), fs: ffs }),
    (e: unknown) => e instanceof UserFacingError && e.code === 'disk_full' && /is full: the store cannot be created/.test(e.message),
  );
});

test('tmpDir registers one exit listener however many directories a test run makes', () => {
  const before = process.listenerCount('exit');
  for (let i = 0; i < 15; i++) tmpDir();
  assert.ok(process.listenerCount('exit') <= Math.max(before, 1), `exit listeners: ${process.listenerCount('exit')}`);
});
