// Two projects, one global store: the first engine owns global/ and serves it on its own
// socket held to scope global; the other project's engine (global/ read-only there) forwards
// global calls to it, so both read and write the same global memories live, and a project
// memory of one is never reachable through the other's global socket.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { EngineError } from '../../../../src/engine/errors';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { sharedClient } from './sharedHarness';

test('the global store is shared across projects: writes and reads from both, scoped to global', { timeout: 120_000 }, async () => {
  const root = tmpDir('am-global-');
  const home = path.join(root, 'home');
  const x = sharedClient({ home, workspaceRoot: fakeClone(root, 'x', 'https://github.com/acme/x.git') }, 'project X');
  await x.client.start();
  const y = sharedClient({ home, workspaceRoot: fakeClone(root, 'y', 'https://github.com/acme/y.git') }, 'project Y');
  await y.client.start();
  assert.notEqual(x.client.ready?.projectId, y.client.ready?.projectId);
  assert.equal(x.transport()?.role, 'owner');
  assert.equal(y.transport()?.role, 'owner', 'each project has its own store and owner');
  try {
    const fromY = await y.client.request('memory.create', {
      content: 'Global rule from Y: commit messages explain why, not what.',
      scope: 'global',
    });
    assert.equal(fromY.status, 'created', JSON.stringify(fromY));
    if (fromY.status !== 'created') return;
    assert.equal((await x.client.request('memory.get', { id: fromY.memory.id }))?.scope, 'global', 'X (the owner of global/) has it');

    const yEvents: EngineEvent[] = [];
    y.client.onEvent((e) => yEvents.push(e));
    const fromX = await x.client.request('memory.create', { content: 'Global rule from X: never force-push to main.', scope: 'global' });
    assert.equal(fromX.status, 'created');
    if (fromX.status !== 'created') return;
    const hits = await y.client.request('search', { query: 'force-push main' });
    assert.ok(
      hits.hits.some((h) => h.memory.id === fromX.memory.id && h.store === 'global'),
      'Y finds a global memory written after it opened',
    );
    const projectY = await y.client.request('memory.create', { content: 'Y only: the y service listens on port 7400.' });
    assert.equal(projectY.status, 'created');
    const list = await y.client.request('memory.list', { limit: 10 });
    assert.equal(list.total, 3, 'project Y + both global memories');
    assert.equal((await y.client.request('memory.list', { scope: 'global' })).total, 2);
    const stats = await y.client.request('stats', {});
    assert.equal(stats.global.memories, 2);
    assert.equal(stats.project.memories, 1);

    const updated = await y.client.request('memory.update', {
      id: fromX.memory.id,
      patch: { content: 'Global rule from X: never force-push to main or release branches.' },
    });
    assert.equal(updated.version, 2);
    assert.match((await x.client.request('memory.get', { id: fromX.memory.id }))?.content ?? '', /release branches/);
    assert.deepEqual(
      (await y.client.request('memory.history', { id: fromX.memory.id })).map((h) => h.event),
      ['created', 'updated'],
    );
    // Versions and "restore this version" of a global memory reach its owner too.
    assert.deepEqual(
      (await y.client.request('memory.versions', { id: fromX.memory.id })).map((v) => v.version),
      [1, 2],
    );
    const restored = await y.client.request('memory.restoreVersion', { id: fromX.memory.id, version: 1, expectedVersion: 2 });
    assert.equal(restored.version, 3);
    assert.equal((await x.client.request('memory.get', { id: fromX.memory.id }))?.content, 'Global rule from X: never force-push to main.');
    assert.ok(
      yEvents.some((e) => e.type === 'memory.changed' && e.store !== 'project' && e.ids.includes(fromX.memory.id)),
      "Y hears of X's global writes",
    );

    // X's project memories are not reachable through the global socket.
    const projectX = await x.client.request('memory.create', { content: 'X only: the x service reads X_TOKEN.' });
    assert.equal(projectX.status, 'created');
    if (projectX.status !== 'created') return;
    assert.equal(await y.client.request('memory.get', { id: projectX.memory.id }), null);
    await assert.rejects(
      y.client.request('memory.versions', { id: projectX.memory.id }),
      (e) => e instanceof EngineError && e.code === 'not_found',
    );
    await assert.rejects(
      y.client.request('memory.delete', { id: projectX.memory.id }),
      (e) => e instanceof EngineError && e.code === 'not_found',
    );
    const deleted = await y.client.request('memory.delete', { id: fromY.memory.id });
    assert.ok(deleted.deletedAt);
    assert.equal((await x.client.request('memory.list', { scope: 'global' })).total, 1);
  } finally {
    await y.client.shutdown();
    await x.client.shutdown();
  }
});
