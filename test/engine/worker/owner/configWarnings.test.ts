// The owner's agent.yaml problems are not handed to every window that connects: each window
// checks its own agent.yaml (src/extension/config/configDiagnostics.ts) and says each problem once. A
// client's ready message carried the owner's whole warning list, where every reload had added
// the same problems again and fixed ones stayed: a client window logged them three times each.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { sharedClient } from './sharedHarness';

test("a client's ready message carries none of the owner's agent.yaml problems, fixed or not; diagnostics keep no fixed one", async () => {
  const root = tmpDir('am-cfgwarn-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const yaml = path.join(ws, 'agent.yaml');
  fs.writeFileSync(yaml, 'memory:\n  default_ttl: soon\n');
  const owner = sharedClient({ home, workspaceRoot: ws }, 'owner window');
  await owner.client.start();
  try {
    assert.equal(owner.transport()?.role, 'owner');
    // The owner's window saves the file a few times (each save reloads the engine's configuration).
    for (let i = 0; i < 3; i++) await owner.client.request('config.reload', {});
    fs.writeFileSync(yaml, 'memory:\n  default_ttl: 7d\n'); // fixed
    await owner.client.request('config.reload', {});

    const client = sharedClient({ home, workspaceRoot: ws }, 'second window');
    const ready = await client.client.start();
    try {
      assert.equal(client.transport()?.role, 'client');
      const configWarnings = ready.warnings.filter((w) => /default_ttl|config/.test(w));
      assert.deepEqual(configWarnings, [], `no agent.yaml problem in the ready message: ${ready.warnings.join(' | ')}`);
      const d = await client.client.request('diagnostics', {});
      assert.deepEqual(d.config.issues, [], 'the configuration in force has no issue');
      assert.ok(!d.warnings.some((w) => /default_ttl/.test(w)), `a fixed problem is not a warning any more: ${d.warnings.join(' | ')}`);
    } finally {
      await client.client.shutdown();
    }
  } finally {
    await owner.client.shutdown();
  }
});
