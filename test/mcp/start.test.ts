// The first steps of `agent-memory mcp` (src/mcp/start.ts): the engine is under way before the
// CLI evaluates the MCP SDK. `begun` settles when this process has started the engine's thread
// (it owns the store) or, when another process owns it, once the engine is reached — never later
// than BEGIN_WAIT_MS (100 ms), so a slow owner cannot hold the handshake up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { connectEngine } from '../../src/cli/connect';
import { parseCli } from '../../src/cli/args';
import { startMcp } from '../../src/mcp/start';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';

function mcpArgs(ws: string, home: string) {
  const parsed = parseCli(['mcp', '--workspace', ws, '--home', home], ws);
  assert.equal(parsed.kind, 'run');
  return parsed.args;
}

test('connectEngine says when it starts the engine thread: once as the owner, never as a client of another owner', async () => {
  const root = tmpDir('am-mcp-start-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const settings = { 'embedding.provider': 'hash' };
  let ownerSpawned = 0;
  let clientSpawned = 0;
  const owner = connectEngine({ workspace: ws, home, client: 'owner', settings, onWorkerSpawned: () => ownerSpawned++ });
  const client = connectEngine({ workspace: ws, home, client: 'client', settings, onWorkerSpawned: () => clientSpawned++ });
  try {
    await owner.start();
    assert.equal(ownerSpawned, 1);
    await client.start();
    assert.equal(clientSpawned, 0, 'the store has an owner: the client connects to it and starts no thread');
  } finally {
    await client.shutdown();
    await owner.shutdown();
  }
});

test('startMcp: `begun` settles once the engine thread is started, before the engine is ready', async () => {
  const root = tmpDir('am-mcp-start-');
  const ws = fakeClone(root, 'repo');
  const errors: string[] = [];
  // A long limit: on a loaded machine the spawn may take longer than the CLI's; the order is the point here.
  const started = startMcp(mcpArgs(ws, path.join(root, 'home')), { err: (s) => errors.push(s) }, 30_000);
  assert.notEqual(typeof started, 'number');
  if (typeof started === 'number') return;
  let ready = false;
  const readyAt = started.engine.whenReady().then(() => (ready = true));
  try {
    const how = await started.begun;
    // The store opens in the thread after this: had `begun` waited for it, the SDK's evaluation
    // would again come after the engine's start instead of beside it.
    assert.equal(ready, false, 'begun settled only when the engine was ready');
    assert.equal(how, 'spawned');
    await readyAt;
    assert.deepEqual(errors, []);
  } finally {
    await started.engine.shutdown();
  }
});
