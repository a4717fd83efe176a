// Writes racing a configuration reload (a window reloads agent.yaml while the CLI or an agent
// writes through it): the reload closes the store runtimes (vector stores, pipelines) and builds
// new ones, and every write under way or arriving meanwhile is applied — none fails with "vector
// store … is closed" (src/core/util/sharedExclusiveGate.ts, MemoryEngine.serveRequest).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';
import { sharedClient } from './sharedHarness';

test('writes and searches through another client while the owner reloads its configuration are all answered', async () => {
  const root = tmpDir('am-reloadrace-');
  const home = path.join(root, 'home');
  const clone = fakeClone(root, 'clone');
  // The built-in embedder, as in a window: its embedding is asynchronous, so a write is under way across the reload.
  const settings = { 'embedding.provider': 'builtin' };
  const owner = sharedClient({ home, workspaceRoot: clone, settings, purpose: 'VS Code window (pid 1)' }, 'owner window');
  await owner.client.start();
  const cli = sharedClient({ home, workspaceRoot: clone, settings }, 'agent-memory CLI');
  try {
    await cli.client.start();
    assert.equal(cli.transport()?.role, 'client');
    const writes: Promise<unknown>[] = [];
    const reloads: Promise<unknown>[] = [];
    for (let round = 0; round < 6; round++) {
      // Each reload changes a setting, as an edited agent.yaml does, with writes before, during and after it.
      for (let i = 0; i < 5; i++)
        writes.push(
          cli.client.request('memory.create', { content: `Round ${round} write ${i}: the build uses esbuild ${round * 10 + i}` }),
        );
      reloads.push(owner.client.request('config.reload', { settings: { ...settings, 'search.default_limit': 5 + (round % 2) } }));
      for (let i = 5; i < 10; i++) {
        writes.push(
          cli.client.request('memory.create', { content: `Round ${round} write ${i}: the build uses esbuild ${round * 10 + i}` }),
        );
        writes.push(cli.client.request('search', { query: `esbuild ${round * 10 + i}`, limit: 3 }));
      }
    }
    const settled = await Promise.allSettled([...writes, ...reloads]);
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason));
    assert.deepEqual(failures, [], 'every write, search and reload is answered');
    const list = await cli.client.request('memory.list', { limit: 100 });
    assert.equal(list.total, 60, 'all 60 writes are in the store, once each');
    // The vectors of the writes are there too: a search finds one by its words through the rebuilt runtimes.
    const found = await cli.client.request('search', { query: 'Round 5 write 9 esbuild 59', limit: 1 });
    assert.match(found.hits[0]?.memory.preview ?? '', /Round 5 write 9/);
  } finally {
    await cli.client.shutdown();
    await owner.client.shutdown();
  }
});
