// The engine on a full disk (faults injected through test/fixtures/faultFs.ts): it opens, memories
// can be read and searched, a write says the disk is full, and what the open itself would have
// written (the missing-vector queue) waits for space with a recorded warning instead of failing
// the open. Once space is back, writes work and the waiting work is done.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { MemoryEngine, type EngineOptions } from '../../src/engine/worker/engine';
import { UserFacingError } from '../../src/core/util/errors';
import type { ChooseEmbedder } from '../../src/engine/worker/runtime/embedders';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { Store } from '../../src/core/store/store';
import type { EngineEvent } from '../../src/engine/protocol';
import { FaultFs } from '../fixtures/faultFs';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { until } from '../helpers/until';

/** A hash embedder of `dim` dimensions: each dimension is its own embedding space. */
const hashOf =
  (dim: number): ChooseEmbedder =>
  async () => ({ embedder: new HashEmbedder({ dimension: dim }), provider: 'hash', reason: `hash ${dim}-d`, degraded: false });

const NOTES = [
  'Billing runs on the first of the month and retries failed cards twice.',
  'The nightly job compacts the audit log before the backup starts.',
  'Feature flags are evaluated on the server, never in the browser.',
];

test('the engine opens on a full disk: reads and searches work, a write says the disk is full, work resumes once space is back', async () => {
  const root = tmpDir('am-diskfull-');
  const base: EngineOptions = { home: path.join(root, 'home'), workspaceRoot: fakeClone(root, 'repo'), snapshotTickMs: 0 };
  const settings = { 'embedding.provider': 'hash' };
  const first = await MemoryEngine.open({ ...base, settings, chooseEmbedder: hashOf(64) });
  const ids: string[] = [];
  for (const content of NOTES) {
    const r = await first.memories.create({ content });
    assert.equal(r.status, 'created');
    ids.push((r as { memory: { id: string } }).memory.id);
  }
  await first.close();

  // Another embedding space: at open every memory lacks a vector in it, so the open wants to write.
  const ffs = new FaultFs();
  ffs.diskFull = true;
  const events: EngineEvent[] = [];
  const engine = await MemoryEngine.open({ ...base, settings, chooseEmbedder: hashOf(96), storeFs: ffs, onEvent: (e) => events.push(e) });
  const space = engine.embedderInfo!.space;
  const dir = engine.diagnostics.stats().project.dir;
  try {
    assert.equal(engine.memories.list({ limit: 10 }).total, 3, 'memories can be read');
    const found = await engine.search.search({ query: 'audit log compaction backup' });
    assert.equal(found.hits[0]?.memory.id, ids[1], 'search works');
    const queued = engine.startupWarnings.find((w) => /disk .*full/i.test(w) && /vector/.test(w));
    assert.ok(queued, `a recorded warning says the vector work waits for space:\n${engine.startupWarnings.join('\n')}`);
    await assert.rejects(
      () => engine.memories.create({ content: 'Releases are tagged from the main branch only.' }),
      (e: unknown) => e instanceof UserFacingError && e.code === 'disk_full' && /full/.test(e.message),
    );
    assert.equal(engine.diagnostics.stats().project.health.state, 'disk_full');

    ffs.clear(); // space is back
    await until('writes to resume', () => engine.diagnostics.stats().project.health.state === 'ok', { timeoutMs: 40_000 });
    assert.equal((await engine.memories.create({ content: 'Releases are tagged from the main branch only.' })).status, 'created');
    // The deferred queue ran: the memories get vectors in the new space in the background.
    await until(
      'the deferred vector queue',
      () => events.some((e) => e.type === 'warning' && /3 memories have no vector from .* yet/.test(e.message)),
      { timeoutMs: 20_000 },
    );
    await until('the vectors of the new space', () => engine.diagnostics.stats().project.pendingEmbeddings === 0, { timeoutMs: 20_000 });
  } finally {
    await engine.close();
  }
  const store = await Store.open({ dir, readOnly: true });
  const n = store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE space = ?', [space])!.n;
  assert.equal(n, 4, 'every memory has its vector in the new space');
  await store.close();
});

/** Writes a file until the disk is full (to the last byte). */
function fill(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (let n = 64 * 1024; n >= 1; n = Math.floor(n / 2)) {
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(n, 1));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

test('a real full disk (8 MB tmpfs): the engine opens, reads and searches, refuses writes clearly, and resumes once space is back', async (t) => {
  const root = tmpDir('am-diskfull-real-');
  const mnt = path.join(root, 'mnt');
  fs.mkdirSync(mnt);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) {
    const reason = `cannot mount a tmpfs here (${(m.stderr || m.error?.message || `exit ${m.status}`).trim()}): the real-disk test is skipped`;
    console.log(reason);
    t.skip(reason);
    return;
  }
  try {
    const base: EngineOptions = { home: path.join(mnt, 'home'), workspaceRoot: fakeClone(root, 'repo'), snapshotTickMs: 0 };
    const settings = { 'embedding.provider': 'hash' };
    const first = await MemoryEngine.open({ ...base, settings, chooseEmbedder: hashOf(64) });
    for (const content of NOTES) assert.equal((await first.memories.create({ content })).status, 'created');
    await first.close();
    const filler = path.join(mnt, 'filler');
    fill(filler);
    const engine = await MemoryEngine.open({ ...base, settings, chooseEmbedder: hashOf(96) });
    try {
      assert.equal(engine.diagnostics.stats().project.health.state, 'disk_full');
      assert.equal(engine.memories.list({ limit: 10 }).total, 3);
      assert.ok((await engine.search.search({ query: 'audit log compaction backup' })).hits.length > 0);
      assert.ok(
        engine.startupWarnings.some((w) => /the disk is full, so 3 memories without a vector/.test(w)),
        engine.startupWarnings.join('\n'),
      );
      await assert.rejects(
        () => engine.memories.create({ content: 'Releases are tagged from the main branch only.' }),
        (e: unknown) => e instanceof UserFacingError && e.code === 'disk_full',
      );
      fs.rmSync(filler);
      await until('writes to resume', () => engine.diagnostics.stats().project.health.state === 'ok', { timeoutMs: 40_000 });
      assert.equal((await engine.memories.create({ content: 'Releases are tagged from the main branch only.' })).status, 'created');
      await until('the vectors of the new space', () => engine.diagnostics.stats().project.pendingEmbeddings === 0, { timeoutMs: 20_000 });
    } finally {
      await engine.close();
    }
  } finally {
    spawnSync('umount', ['-l', mnt]);
  }
});
