// What people see of a store that cannot take writes: its health in stats (the status bar reads
// it) and a refused write that says why — here a lock held on another host (real engine, real lock).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { storeDirsIn } from '../../src/engine/storeLocation';
import { EngineError } from '../../src/engine/errors';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';

test('a store locked by another host opens read-only; stats carry its health and a write says why', async () => {
  const root = tmpDir('am-health-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const settings = { 'embedding.provider': 'hash' };
  // Create the store once, then leave a lock of a process on another machine in it.
  const first = await MemoryEngine.open({ home, workspaceRoot: ws, settings, snapshotTickMs: 0 });
  const projectId = first.projectId;
  await first.close();
  const dir = storeDirsIn(home, projectId).project;
  const lock = {
    token: 'theirs',
    pid: 4242,
    host: 'build-server-7',
    procStart: '123',
    purpose: 'Agent Memory engine',
    acquiredAt: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(dir, 'store.lock'), JSON.stringify(lock));
  const events: unknown[] = [];
  const engine = await MemoryEngine.open({ home, workspaceRoot: ws, settings, snapshotTickMs: 0, onEvent: (e) => events.push(e) });
  try {
    const stats = engine.diagnostics.stats();
    assert.equal(stats.project.readOnly, true);
    assert.deepEqual(engine.diagnostics.location('project'), { dir: stats.project.dir, readOnly: true });
    assert.deepEqual(engine.diagnostics.location('global'), { dir: stats.global.dir, readOnly: false });
    assert.equal(stats.project.health.state, 'read_only');
    assert.match(stats.project.health.detail, /build-server-7/, 'the health names the other host');
    assert.equal(stats.global.health.state, 'ok');
    await assert.rejects(
      () => engine.memories.create({ content: 'Deploys go through the staging cluster first, never straight to production.' }),
      (e: unknown) =>
        e instanceof EngineError &&
        e.code === 'store_read_only' &&
        /build-server-7/.test(e.message) &&
        !/another VS Code window/.test(e.message),
    );
  } finally {
    await engine.close();
  }
});
