// The owner of a shared store that goes away on purpose — "Restart Engine" in its window, or
// the window closing — tells its clients first (an owner.leaving event). A client then reconnects
// at once, as a handover: not a crash (no "engine crashed … exited with code 1" in its log, no
// crash counted: six restarts of the owner in a row used to leave a client "failed", its crash
// budget spent), and its state says who went away and why, so a window can say it in words. An
// owner that restarts keeps its store: its clients — windows, and agents through the CLI's
// connectEngine — wait for its socket instead of racing it for the lock.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { connectEngine } from '../../../../src/cli/connect';
import { EngineClient, type EngineStateChange } from '../../../../src/engine/client/engineClient';
import { SharedTransport } from '../../../../src/engine/client/sharedTransport';
import type { EngineInit } from '../../../../src/engine/protocol';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { spawnTsWorker } from '../../harness';

interface Window {
  client: EngineClient;
  /** Engine workers this window started (an owner's, or one racing for the lock). */
  spawned(): number;
  logs: string[];
  states: EngineStateChange[];
  transport(): SharedTransport | undefined;
}

/** An EngineClient as a VS Code window makes it (engineHost.ts): the default crash backoff and budget. */
function window(init: EngineInit, name: string): Window {
  let current: SharedTransport | undefined;
  let spawned = 0;
  const logs: string[] = [];
  const states: EngineStateChange[] = [];
  const client = new EngineClient({
    init: { ...init, purpose: name, settings: { 'embedding.provider': 'hash' } },
    // As engineHost.ts: an owner that restarts is waited for, not raced.
    spawn: (i, hint) =>
      (current = new SharedTransport({
        init: i,
        spawnWorker: (w) => {
          spawned++;
          return spawnTsWorker(w);
        },
        client: name,
        ...(hint?.ownerRestarting ? { waitForOwnerMs: 60_000 } : {}),
      })),
    log: (l) => logs.push(l),
  });
  client.onStateChange((s) => states.push(s));
  return { client, logs, states, transport: () => current, spawned: () => spawned };
}

test('an owner that restarts or closes hands its clients over: no crash logged or counted, the reason in the state', async () => {
  const root = tmpDir('am-handover-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const a = window({ home, workspaceRoot: ws }, 'window A');
  await a.client.start();
  assert.equal(a.transport()?.role, 'owner');
  const b = window({ home, workspaceRoot: ws }, 'window B');
  const nameOf = (w: Window) => (w === a ? 'window A' : 'window B');
  await b.client.start();
  assert.equal(b.transport()?.role, 'client');
  try {
    // More restarts than a client's crash budget (5 within 2 minutes): each time the window that
    // owns the store restarts its engine, keeps the store, and the other reconnects to it.
    for (let i = 1; i <= 6; i++) {
      const [owner, client] = a.transport()?.role === 'owner' ? [a, b] : [b, a];
      assert.equal(client.transport()?.role, 'client');
      const from = client.states.length;
      const spawnedBefore = client.spawned();
      const t0 = Date.now();
      await owner.client.restart();
      await client.client.whenReady();
      // The restarting window keeps its store; the other reconnects to it without a worker of its own.
      assert.equal(owner.transport()?.role, 'owner', `restart ${i}: the window that restarted still serves the store`);
      assert.equal(client.transport()?.role, 'client');
      assert.equal(client.spawned(), spawnedBefore, `restart ${i}: the client started no engine worker`);
      const back = Date.now() - t0;
      await client.client.request('stats', {});
      const seen = client.states.slice(from);
      const restarting = seen.find((s) => s.state === 'restarting');
      assert.ok(restarting, `restart ${i}: the client reconnects (${JSON.stringify(seen)})`);
      assert.deepEqual(restarting.handover, { owner: nameOf(owner), restarting: true }, `restart ${i}: it knows who went away and why`);
      assert.ok(!seen.some((s) => s.state === 'failed'), `restart ${i}: it never fails`);
      console.log(`restart ${i}: the client was back ${back} ms after the owner's Restart Engine began`);
    }
    for (const w of [a, b]) {
      assert.equal(w.client.restarts, 0, `${nameOf(w)}: no crash counted`);
      assert.deepEqual(
        w.logs.filter((l) => /crash/.test(l)),
        [],
        `${nameOf(w)}: nothing logged as a crash`,
      );
    }

    // The owner's window closes: whoever owns the store now hands over the same way, as closed.
    const [owner, other] = a.transport()?.role === 'owner' ? [a, b] : [b, a];
    const from = other.states.length;
    await owner.client.shutdown();
    await other.client.whenReady();
    const handover = other.states.slice(from).find((s) => s.state === 'restarting')?.handover;
    assert.deepEqual(handover, { owner: nameOf(owner), restarting: false });
    assert.equal(other.transport()?.role, 'owner', 'the other window took the store over');
    assert.deepEqual(
      other.logs.filter((l) => /crash/.test(l)),
      [],
    );
  } finally {
    await Promise.all([a.client.shutdown(), b.client.shutdown()]);
  }
});

test('an agent (the CLI or MCP server) connected to a window that restarts its engine waits for it: the window keeps the store', async () => {
  const root = tmpDir('am-handover-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  const a = window({ home, workspaceRoot: ws }, 'window A');
  await a.client.start();
  assert.equal(a.transport()?.role, 'owner');
  const agent = connectEngine({ workspace: ws, home, client: 'agent-memory mcp', settings: { 'embedding.provider': 'hash' } });
  const states: EngineStateChange[] = [];
  agent.onStateChange((s) => states.push(s));
  try {
    await agent.start();
    for (let i = 1; i <= 3; i++) {
      const from = states.length;
      await a.client.restart();
      await agent.whenReady();
      assert.equal(a.transport()?.role, 'owner', `restart ${i}: the window that restarted still serves the store`);
      assert.ok(
        states.slice(from).some((s) => s.state === 'restarting' && s.handover?.owner === 'window A' && s.handover.restarting),
        `restart ${i}: the agent heard that the window restarts its engine`,
      );
      assert.equal(
        (await agent.request('memory.create', { content: `Restart ${i} of the window's engine was waited for.` })).status,
        'created',
      );
    }
    assert.equal(agent.restarts, 0, 'no crash counted');
  } finally {
    await agent.shutdown();
    await a.client.shutdown();
  }
});
