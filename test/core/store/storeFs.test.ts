// @tier durability
/**
 * A real full disk: the store on an 8 MB tmpfs filled to the last byte. Needs `mount` (root);
 * skipped with the reason printed where mounting is not allowed. The injected-fault versions
 * of these checks run everywhere (storeHealth.test.ts, opLog.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Store } from '../../../src/core/store/store';
import { UserFacingError } from '../../../src/core/util/errors';
import { tmpDir } from '../../helpers/tmp';
import { until } from '../../helpers/until';

function insert(store: Store, id: string): void {
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES (?, 'p', ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [id, `note ${id} ${'words '.repeat(40)}`, `note ${id}`, `h-${id}`, `d-${id}`],
    );
  });
}

function ids(store: Store): string[] {
  return store.all<{ id: string }>('SELECT id FROM memories ORDER BY rid').map((r) => r.id);
}

/** Writes a file until the disk is full. */
function fill(file: string): void {
  const chunk = Buffer.alloc(16 * 1024, 1);
  const fd = fs.openSync(file, 'w');
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    for (let n = 4096; n >= 1; n = Math.floor(n / 2)) {
      try {
        for (;;) fs.writeSync(fd, chunk, 0, n);
      } catch {
        // the next smaller size
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

test('a real full disk (8 MB tmpfs): clear errors, opens read-only-for-now, writes resume when space is back, nothing acknowledged lost', async (t) => {
  const mnt = path.join(tmpDir('am-tmpfs-'), 'mnt');
  fs.mkdirSync(mnt);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) {
    const reason = `cannot mount a tmpfs here (${(m.stderr || m.error?.message || `exit ${m.status}`).trim()}): the real-disk test is skipped`;
    console.log(reason);
    t.skip(reason);
    return;
  }
  try {
    const dir = path.join(mnt, 'store');
    const filler = path.join(mnt, 'filler');
    let store = await Store.open({ dir, recoveryIntervalMs: 20 });
    const acked: string[] = [];
    for (let i = 0; i < 5; i++) {
      insert(store, `before-${i}`);
      acked.push(`before-${i}`);
    }
    fill(filler);
    // The log's last page may still have room (tmpfs allocates whole pages): writes fit until it is full.
    for (let i = 0; store.health().state === 'ok'; i++) {
      assert.ok(i < 100, 'the disk never filled');
      try {
        insert(store, `slack-${i}`);
        acked.push(`slack-${i}`);
      } catch (e) {
        assert.ok(e instanceof UserFacingError && e.code === 'disk_full', String(e));
      }
    }
    for (let i = 0; i < 30; i++) {
      assert.throws(
        () => insert(store, `refused-${i}`),
        (e: unknown) => e instanceof UserFacingError && e.code === 'disk_full',
      );
    }
    assert.equal(store.health().state, 'disk_full');
    await store.close(); // its snapshot cannot be written: close still succeeds

    // Opening while the disk is full: readable, with the state people see.
    store = await Store.open({ dir, recoveryIntervalMs: 20 });
    assert.equal(store.health().state, 'disk_full', store.health().detail);
    assert.deepEqual(ids(store), acked);
    assert.ok(store.warnings.length <= 3, store.warnings.join('\n'));

    fs.rmSync(filler); // space is back
    await until('the store to be healthy again', () => store.health().state === 'ok', { timeoutMs: 10_000, intervalMs: 20 });
    for (let i = 0; i < 30; i++) {
      insert(store, `after-${i}`);
      acked.push(`after-${i}`);
    }
    await store.close({ snapshot: false });

    const again = await Store.open({ dir });
    assert.deepEqual(ids(again), acked);
    assert.deepEqual(again.integrityCheck(), []);
    await again.close();
  } finally {
    spawnSync('umount', ['-l', mnt]);
  }
});
