// A request that embeds text and waits for a starting engine tells it so (PrepareMessage): the
// engine then loads its embedder while the stores open instead of after (protocol.ts). Through
// the real worker thread and SharedTransport, as `agent-memory mcp` starts it. Without such a
// request nothing loads early; a client of another process's engine sends nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { EngineEvent } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { sharedClient } from './worker/owner/sharedHarness';

const LOADING = /^loading the embedder \(hash\) while the store opens: a request that needs it is waiting$/;

function logsOf(client: { onEvent(l: (e: EngineEvent) => void): unknown }): () => string[] {
  const events: EngineEvent[] = [];
  client.onEvent((e) => events.push(e));
  return () => events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
}

function store(): { home: string; workspaceRoot: string } {
  const root = tmpDir('am-prepare-');
  return { home: path.join(root, 'home'), workspaceRoot: fakeClone(root, 'clone') };
}

test('a search asked while the engine starts has it load the embedder as the store opens', async () => {
  const { client } = sharedClient(store(), 'prepare test');
  const logs = logsOf(client);
  const started = client.start();
  try {
    assert.equal(client.state, 'starting');
    const r = await client.request('search', { query: 'which package manager do we use', limit: 3 });
    await started;
    assert.deepEqual(r.hits, [], 'a new store');
    assert.equal(logs().filter((l) => LOADING.test(l)).length, 1, logs().join('\n'));
  } finally {
    await client.shutdown();
  }
});

test('no request waiting: the engine starts without loading its embedder; a client of that owner sends nothing', async () => {
  const s = store();
  const owner = sharedClient(s, 'owner');
  const ownerLogs = logsOf(owner.client);
  await owner.client.start();
  const other = sharedClient(s, 'other');
  const otherLogs = logsOf(other.client);
  try {
    assert.deepEqual(
      ownerLogs().filter((l) => LOADING.test(l)),
      [],
      'nothing asked: nothing prepared',
    );
    // The other side connects to the owner; its search waits for that connection, and no prepare goes out.
    const started = other.client.start();
    const r = await other.client.request('search', { query: 'which package manager do we use', limit: 3 });
    await started;
    assert.equal(other.transport()?.role, 'client');
    assert.deepEqual(r.hits, [], 'a new store');
    assert.deepEqual(
      [...ownerLogs(), ...otherLogs()].filter((l) => LOADING.test(l)),
      [],
    );
  } finally {
    await other.client.shutdown();
    await owner.client.shutdown();
  }
});
