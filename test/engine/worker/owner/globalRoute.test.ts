// The route of global calls (src/engine/worker/owner/globalRoute.ts) with real engine workers: when the
// window owning global/ closes, the other project's engine takes the global store over at its
// next global call (writable, with everything written before), and a window opened later links
// to the new owner and sees the same global memories. While global/ is held by a process that
// does not serve it, reads come from the read-only copy at once and the first engine to get the
// lock afterwards takes the store over.
import { mock, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { EngineError } from '../../../../src/engine/errors';
import { GlobalRoute, READ_WAIT_MS } from '../../../../src/engine/worker/owner/globalRoute';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { sharedClient } from './sharedHarness';
import { realDelay, until } from '../../../helpers/until';

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
      // Answered while the holder keeps global/'s lock (it closes only below), so from Y's
      // read-only copy and not by an owner; how long a read waits for one is proven with mock
      // timers in the tests of GlobalRoute below.
      const list = await y.client.request('memory.list', { scope: 'global' });
      assert.equal(list.total, 1, 'the read-only copy answers');
      assert.equal((await y.client.request('stats', {})).global.readOnly, true, 'while nobody serves global/, Y reads its copy');

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

/** A GlobalRoute over a global/ nobody serves (no owner record), its take-over attempts counted. */
async function routeWithoutOwner(takeOver: () => Promise<boolean>): Promise<{ route: GlobalRoute; attempts: () => number }> {
  let attempts = 0;
  const route = await GlobalRoute.start({
    globalDir: path.join(tmpDir('am-global-wait-'), 'global'),
    client: 'test',
    onEvent: () => undefined,
    takeOver: () => {
      attempts++;
      return takeOver();
    },
    becameOwner: async () => undefined,
    log: () => undefined,
    waitMs: 10_000,
  });
  return { route, attempts: () => attempts };
}

/** How a call ends, read without awaiting it. */
function track(call: Promise<unknown>): () => { value: unknown } | { error: unknown } | undefined {
  let outcome: { value: unknown } | { error: unknown } | undefined;
  call.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  return () => outcome;
}

const fromCopy = async () => ({ total: 1, answeredBy: 'copy' }) as never;

test('no owner yet while a take-over attempt runs: a read waits READ_WAIT_MS, then the copy answers; a write waits waitMs, then fails', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  let release: (held: boolean) => void = () => undefined;
  const { route, attempts } = await routeWithoutOwner(() => new Promise<boolean>((r) => (release = r)));
  try {
    await until('the first take-over attempt', attempts);
    const read = track(route.request('memory.list', { scope: 'global' }, fromCopy));
    const write = track(route.request('memory.create', { content: 'x', scope: 'global' }, fromCopy));
    mock.timers.tick(READ_WAIT_MS - 1);
    await realDelay(20);
    assert.equal(read(), undefined, 'the read still waits for an owner');
    mock.timers.tick(1);
    const answered = await until('the read to be answered', read);
    assert.deepEqual(answered, { value: { total: 1, answeredBy: 'copy' } }, 'from the copy, after exactly READ_WAIT_MS');
    assert.equal(route.local, false);
    mock.timers.tick(10_000 - READ_WAIT_MS - 1);
    await realDelay(20);
    assert.equal(write(), undefined, 'the write still waits for an owner');
    mock.timers.tick(1);
    const failed = await until('the write to fail', write);
    assert.ok('error' in failed && failed.error instanceof EngineError, `the write failed with an EngineError: ${JSON.stringify(failed)}`);
    assert.equal(failed.error.code, 'engine_unavailable');
    assert.equal(attempts(), 1, 'one take-over attempt, still running: nothing else ended the waits');
  } finally {
    await route.close();
    release(false);
    mock.timers.reset();
  }
});

test('once a round found nobody serving global/ and its lock held, a read is answered from the copy with no wait at all', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const { route, attempts } = await routeWithoutOwner(async () => false);
  try {
    await until('a take-over attempt that found the lock held', attempts);
    await realDelay(20);
    const read = track(route.request('memory.list', { scope: 'global' }, fromCopy));
    // No mocked time passes: a read that waited for any timer would never be answered.
    assert.deepEqual(await until('the read to be answered', read), { value: { total: 1, answeredBy: 'copy' } });
  } finally {
    await route.close();
    mock.timers.reset();
  }
});
