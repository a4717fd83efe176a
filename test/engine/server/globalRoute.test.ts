// The route of global calls (src/engine/server/globalRoute.ts) with real engine workers: when the
// window owning global/ closes, the other project's engine takes the global store over at its
// next global call (writable, with everything written before), and a window opened later links
// to the new owner and sees the same global memories. While global/ is held by a process that
// does not serve it, reads come from the read-only copy at once and the first engine to get the
// lock afterwards takes the store over.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryEngine } from '../../../src/engine/engine';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';
import { sharedClient } from './sharedHarness';

test('the owner of global/ closes: the other project takes it over, a later window links to it', { timeout: 180_000 }, async () => {
  const root = tmpDir('am-global-route-');
  const home = path.join(root, 'home');
  const wsX = fakeClone(root, 'x', 'https://github.com/acme/x.git');
  const wsY = fakeClone(root, 'y', 'https://github.com/acme/y.git');
  const x = sharedClient({ home, workspaceRoot: wsX }, 'project X');
  await x.client.start();
  const y = sharedClient({ home, workspaceRoot: wsY }, 'project Y');
  await y.client.start();
  let x2: ReturnType<typeof sharedClient> | undefined;
  try {
    assert.equal((await x.client.request('stats', {})).global.readOnly, false, 'X owns global/');
    const before = await x.client.request('memory.create', {
      content: 'Global before: every service logs in JSON lines.',
      scope: 'global',
    });
    assert.equal(before.status, 'created');
    await x.client.shutdown();

    const after = await y.client.request('memory.create', {
      content: 'Global after: feature flags live in LaunchDarkly.',
      scope: 'global',
    });
    assert.equal(after.status, 'created', JSON.stringify(after));
    const yStats = await y.client.request('stats', {});
    assert.equal(yStats.global.readOnly, false, "Y's engine took global/ over");
    assert.equal(yStats.global.memories, 2, 'with the memory X wrote before it closed');

    x2 = sharedClient({ home, workspaceRoot: wsX }, 'project X again');
    await x2.client.start();
    const xStats = await x2.client.request('stats', {});
    assert.equal(xStats.global.memories, 2, 'the new X window reaches the global memories through Y');
    const hits = await x2.client.request('search', { query: 'feature flags LaunchDarkly', scope: 'global' });
    assert.ok(hits.hits.some((h) => after.status === 'created' && h.memory.id === after.memory.id));
    const fromX = await x2.client.request('memory.create', {
      content: 'Global from X again: releases are tagged vYYYY.MM.',
      scope: 'global',
    });
    assert.equal(fromX.status, 'created');
    assert.equal((await y.client.request('memory.list', { scope: 'global' })).total, 3, 'Y (the owner now) has it');
  } finally {
    await x2?.client.shutdown();
    await y.client.shutdown();
    await x.client.shutdown();
  }
});

test(
  'global/ held by an engine that does not serve it: reads use the copy, the lock is taken once released',
  { timeout: 180_000 },
  async () => {
    const root = tmpDir('am-global-route-');
    const home = path.join(root, 'home');
    // An engine in this process (no socket): it holds global/'s lock and serves nobody.
    const holder = await MemoryEngine.open({
      home,
      workspaceRoot: fakeClone(root, 'h', 'https://github.com/acme/h.git'),
      snapshotTickMs: 0,
      settings: { 'embedding.provider': 'hash' },
    });
    let holderOpen = true;
    const y = sharedClient({ home, workspaceRoot: fakeClone(root, 'y', 'https://github.com/acme/y.git') }, 'project Y');
    try {
      const early = await holder.memories.create({ content: 'Global, held: the CI runners use Ubuntu 24.04 images.', scope: 'global' });
      assert.equal(early.status, 'created');
      await holder.maintenance.maybeSnapshot(Date.now() + 60_000); // on disk in a snapshot for Y's read-only copy
      await y.client.start();
      const t0 = Date.now();
      const list = await y.client.request('memory.list', { scope: 'global' });
      assert.equal(list.total, 1, 'the read-only copy answers');
      assert.ok(Date.now() - t0 < 15_000, `without waiting for an owner (${Date.now() - t0} ms)`);

      await holder.close();
      holderOpen = false;
      const later = await y.client.request('memory.create', {
        content: 'Global, taken over: staging deploys need a green canary.',
        scope: 'global',
      });
      assert.equal(later.status, 'created', JSON.stringify(later));
      const stats = await y.client.request('stats', {});
      assert.equal(stats.global.readOnly, false, 'Y took global/ over once its lock was free');
      assert.equal(stats.global.memories, 2);
    } finally {
      await y.client.shutdown();
      if (holderOpen) await holder.close();
    }
  },
);
