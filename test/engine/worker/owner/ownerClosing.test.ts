// A store's owner that closes (its window or CLI exits) while its clients write: it answers what
// it accepted before it closes the connection, refuses what arrives later (engine_closing, not
// run), and the client sends that to the next owner — no change lost or failed for it, and the
// owner going away is no crash of the client. The same for the owner of the global store and the
// engines of other projects that reach it (GlobalRoute).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { EngineStateChange } from '../../../../src/engine/client/engineClient';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { FakeOllama } from '../../../helpers/fakeOllama';
import { sharedClient } from './sharedHarness';
import { until } from '../../../helpers/until';

test('an owner that shuts down answers the update in flight; writes sent while it closes go to the next owner', async () => {
  const root = tmpDir('am-closing-');
  const home = path.join(root, 'home');
  const ollama = await FakeOllama.start({ embedDelayMs: 1000 });
  const settings = { 'embedding.provider': 'ollama', 'embedding.ollama_url': ollama.url };
  const a = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-a'), settings }, 'owner A');
  const b = sharedClient({ home, workspaceRoot: fakeClone(root, 'clone-b'), settings }, 'client B');
  const states: EngineStateChange[] = [];
  try {
    await a.client.start();
    await b.client.start();
    assert.equal(a.transport()?.role, 'owner');
    assert.equal(b.transport()?.role, 'client');
    b.client.onStateChange((s) => states.push(s));
    const first = await a.client.request('memory.create', { content: 'The release branch is cut every second Tuesday.' });
    const second = await a.client.request('memory.create', { content: 'Staging data is wiped every night at 02:00 UTC.' });
    assert.ok(first.status === 'created' && second.status === 'created');

    // B's update waits for its embedding (1 s) on A when A is told to shut down.
    const embedsBefore = ollama.count('embed');
    const update = b.client.request('memory.update', {
      id: first.memory.id,
      patch: { content: 'The release branch is cut every second Wednesday since March.' },
    });
    await until('the update to reach the embedder', () => ollama.count('embed') > embedsBefore, { timeoutMs: 60_000, intervalMs: 10 });
    const closing = a.client.shutdown(15_000);
    // Sent while A closes: refused there (not run) and sent again to the next owner, or answered by A.
    const deletion = b.client.request('memory.delete', { id: second.memory.id });
    const created = b.client.request('memory.create', { content: 'Feature flags live in the flags.yaml of each service.' });

    const updated = await update;
    assert.equal(updated.content, 'The release branch is cut every second Wednesday since March.');
    assert.equal(updated.version, 2);
    assert.ok((await deletion).deletedAt, 'the delete sent while the owner closed is applied');
    assert.equal((await created).status, 'created');
    await closing;

    const after = await b.client.request('memory.get', { id: first.memory.id });
    assert.equal(after?.version, 2, 'the update was applied once');
    assert.equal(b.transport()?.role, 'owner', 'B took the store over');
    assert.equal(b.client.restarts, 0, 'the owner leaving is no crash of the client');
    assert.ok(
      states.some((s) => s.state === 'restarting' && s.handover?.owner !== undefined && !s.handover.restarting),
      'B reconnected because its owner left, and knows it left on purpose (owner.leaving)',
    );
    assert.ok(!states.some((s) => s.state === 'failed'));
  } finally {
    await b.client.shutdown();
    await a.client.shutdown();
    await ollama.close();
  }
});

test("the owner of global/ shuts down with another project's global update in flight: answered; later global writes go on", async () => {
  const root = tmpDir('am-closing-');
  const home = path.join(root, 'home');
  const ollama = await FakeOllama.start({ embedDelayMs: 1000 });
  const settings = { 'embedding.provider': 'ollama', 'embedding.ollama_url': ollama.url };
  const x = sharedClient({ home, workspaceRoot: fakeClone(root, 'x', 'https://github.com/acme/x.git'), settings }, 'project X');
  const y = sharedClient({ home, workspaceRoot: fakeClone(root, 'y', 'https://github.com/acme/y.git'), settings }, 'project Y');
  try {
    await x.client.start();
    await y.client.start();
    assert.equal((await x.client.request('stats', {})).global.readOnly, false, 'X owns global/');
    const shared = await y.client.request('memory.create', { content: 'Every service logs in JSON lines to stdout.', scope: 'global' });
    assert.equal(shared.status, 'created');
    if (shared.status !== 'created') return;

    const embedsBefore = ollama.count('embed');
    const update = y.client.request('memory.update', {
      id: shared.memory.id,
      patch: { content: 'Every service logs in JSON lines to stdout, one event per line.' },
    });
    await until("Y's global update to reach the embedder on X", () => ollama.count('embed') > embedsBefore, {
      timeoutMs: 60_000,
      intervalMs: 10,
    });
    const closing = x.client.shutdown(15_000);
    const created = y.client.request('memory.create', { content: 'Global feature flags live in LaunchDarkly.', scope: 'global' });

    const updated = await update;
    assert.equal(updated.content, 'Every service logs in JSON lines to stdout, one event per line.');
    assert.equal(updated.version, 2);
    assert.equal((await created).status, 'created', 'a global write sent while the owner closed goes to the next owner');
    await closing;
    const stats = await y.client.request('stats', {});
    assert.equal(stats.global.readOnly, false, "Y's engine took global/ over");
    assert.equal(stats.global.memories, 2);
    assert.equal((await y.client.request('memory.get', { id: shared.memory.id }))?.version, 2, 'the update was applied once');
  } finally {
    await y.client.shutdown();
    await x.client.shutdown();
    await ollama.close();
  }
});
