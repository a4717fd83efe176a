// A client learns, when it connects, what the owner's engine runs with: the explicit settings
// (as agent.yaml keys), the folder whose agent.yaml it reads, the pipeline mode and who runs it, as they are
// at that moment (after any reload). A VS Code window compares them with its own settings
// (src/extension/host/ownerSettings.ts) so the person's settings decide, or the person is told.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { sharedClient } from './sharedHarness';

test("a client's ready message says the owner's settings, folder and pipeline mode, as reloaded", async () => {
  const root = tmpDir('am-ownercfg-');
  const home = path.join(root, 'home');
  const a = fakeClone(root, 'clone-a');
  const shadow = { 'memory.pipelineV2.enabled': true, 'memory.pipelineV2.shadowMode': true };
  const owner = sharedClient({ home, workspaceRoot: a, settings: shadow, purpose: 'VS Code window (pid 1)' }, 'owner window');
  const ownReady = await owner.client.start();
  const clients = [];
  try {
    assert.equal(owner.transport()?.role, 'owner');
    assert.deepEqual(ownReady.config, {
      settings: { 'embedding.provider': 'hash', ...shadow },
      workspaceRoot: a,
      mode: 'shadow',
      owner: 'VS Code window (pid 1)',
    });
    const b = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-b') }, 'second window');
    clients.push(b);
    const ready = await b.client.start();
    assert.equal(b.transport()?.role, 'client');
    assert.deepEqual(ready.config, {
      settings: { 'embedding.provider': 'hash', ...shadow },
      workspaceRoot: a,
      mode: 'shadow',
      owner: 'VS Code window (pid 1)',
    });

    // A window's reload applies its settings to the owner: the next client hears those.
    await b.client.request('config.reload', { settings: { 'embedding.provider': 'hash' } });
    const c = sharedClient({ home, workspaceRoot: a }, 'third window');
    clients.push(c);
    const third = await c.client.start();
    assert.deepEqual(third.config, {
      settings: { 'embedding.provider': 'hash' },
      workspaceRoot: a,
      mode: 'off',
      owner: 'VS Code window (pid 1)',
    });
  } finally {
    for (const c of clients) await c.client.shutdown();
    await owner.client.shutdown();
  }
});
