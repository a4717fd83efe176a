// The engine through its real worker thread and RPC: requests, typed errors, events,
// cancellation, crash → restart with requests during the restart, clean shutdown snapshot.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../src/core/store/store';
import { EngineError } from '../../src/engine/errors';
import type { EngineEvent } from '../../src/engine/protocol';
import type { EngineStateChange } from '../../src/engine/client/engineClient';
import { storeFolderName } from '../../src/engine/worker/engine';
import { engineDirs, startClient } from './harness';

function waitFor<T>(subscribe: (cb: (v: T) => void) => { dispose(): void }, pred: (v: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const sub = subscribe((v) => {
      if (pred(v)) {
        sub.dispose();
        resolve(v);
      }
    });
  });
}

async function rejectsWithCode(p: Promise<unknown>, code: string): Promise<EngineError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof EngineError, `expected an EngineError, got ${String(e)}`);
    assert.equal(e.code, code, `error code (message: ${e.message})`);
    return e;
  }
  assert.fail(`expected a rejection with code ${code}`);
}

test('memory CRUD, search and events through the worker thread', async () => {
  const client = startClient({ ...engineDirs() });
  const ready = await client.start();
  assert.equal(ready.protocolVersion, 2);
  assert.equal(client.state, 'ready');
  const events: EngineEvent[] = [];
  client.onEvent((e) => events.push(e));
  try {
    const created = await client.request('memory.create', {
      content: 'We pin esbuild to 0.28 because 0.29 breaks the wasm loader.',
      title: 'esbuild pin',
      tags: ['build'],
      origin: 'capture', // short-term, so the promote below has a lifetime to remove
    });
    assert.equal(created.status, 'created');
    assert.equal(created.action, 'stored', 'through the smart store');
    assert.equal(created.embedding, 'ready', 'embedded on write');
    if (created.status !== 'created') return;
    const id = created.memory.id;
    assert.equal((await client.request('memory.get', { id }))?.title, 'esbuild pin');

    const found = await client.request('search', { query: 'why is esbuild pinned?' });
    assert.deepEqual(
      found.hits.map((h) => h.memory.id),
      [id],
    );
    assert.ok(found.hits[0]!.legs.keyword! > 0, 'the keyword leg says it matched');
    assert.ok(found.hits[0]!.legs.vector! > 0, 'the vector leg too (hybrid search over the hash embedder)');
    assert.deepEqual(found.legsUsed, ['keyword', 'vector']);

    const updated = await client.request('memory.update', { id, patch: { title: 'esbuild version pin', expectedVersion: 1 } });
    assert.equal(updated.version, 2);
    await rejectsWithCode(client.request('memory.update', { id, patch: { title: 'stale', expectedVersion: 1 } }), 'version_conflict');

    const promoted = await client.request('memory.promote', { id });
    assert.equal(promoted.ttlSeconds, null);
    assert.equal(promoted.expiresAt, null);

    await client.request('memory.delete', { id });
    assert.equal(await client.request('memory.get', { id }), null);
    assert.equal((await client.request('search', { query: 'esbuild' })).hits.length, 0);
    await client.request('memory.restore', { id });
    const history = await client.request('memory.history', { id });
    assert.deepEqual(
      history.map((h) => h.event),
      ['created', 'updated', 'promoted', 'deleted', 'restored'],
      'a manual promote is recorded as promoted',
    );

    const list = await client.request('memory.list', {});
    assert.equal(list.total, 1);
    assert.deepEqual(await client.request('memory.typeCounts', {}), { general: 1 });

    const kinds = events.filter((e) => e.type === 'memory.changed').map((e) => (e as { kind: string }).kind);
    assert.deepEqual(kinds, ['created', 'updated', 'promoted', 'deleted', 'restored']);
  } finally {
    await client.shutdown();
  }
  assert.equal(client.state, 'stopped');
});

test('bad input and unknown methods are typed errors with readable messages, and the engine keeps serving', async () => {
  const client = startClient({ ...engineDirs() });
  await client.start();
  try {
    const e1 = await rejectsWithCode(client.request('memory.create', { content: '' }), 'invalid_input');
    assert.match(e1.message, /content/);
    assert.equal(await client.request('memory.get', { id: 'no-such-id' }), null);
    await rejectsWithCode(client.request('memory.delete', { id: 'nope' }), 'not_found');
    await rejectsWithCode(client.request('search', { query: 'x', limit: 100000 }), 'invalid_input');
    await rejectsWithCode(client.request('nope.method' as 'stats', {}), 'unknown_method');
    await rejectsWithCode(client.request('memory.update', { id: 'x' } as never), 'not_found');
    await rejectsWithCode(client.request('debug.hang', {}), 'unknown_method'); // debug hooks are off by default
    const skipped = await client.request('memory.create', { content: 'ok ok ok ok ok ok' });
    assert.equal(skipped.status, 'skipped', 'filler is skipped with a reason, not an error');
    assert.equal((await client.request('stats', {})).project.memories, 0);
  } finally {
    await client.shutdown();
  }
});

test('a request can be cancelled; the engine answers the next one', async () => {
  const client = startClient({ ...engineDirs(), allowDebug: true });
  await client.start();
  try {
    const ac = new AbortController();
    const hang = client.request('debug.hang', {}, { signal: ac.signal });
    ac.abort();
    await rejectsWithCode(hang, 'cancelled');
    await rejectsWithCode(client.request('debug.hang', {}, { timeoutMs: 50 }), 'timeout');
    assert.equal((await client.request('stats', {})).project.memories, 0);
  } finally {
    await client.shutdown();
  }
});

for (const how of ['throw', 'exit'] as const) {
  test(`a crashed worker (${how}) restarts; writes survive; requests made during the restart are served after it`, async () => {
    const client = startClient({ ...engineDirs(), allowDebug: true });
    await client.start();
    const states: EngineStateChange[] = [];
    client.onStateChange((s) => states.push(s));
    try {
      const c = await client.request('memory.create', { content: 'The staging database lives on port 5433, not 5432.' });
      assert.equal(c.status, 'created');
      const restarting = waitFor<EngineStateChange>(
        (cb) => client.onStateChange(cb),
        (s) => s.state === 'restarting',
      );
      const crash = client.request('debug.crash', { how });
      await rejectsWithCode(crash, 'engine_crashed');
      await restarting;
      // Issued while the worker is down: queued, then answered by the new worker.
      const during = client.request('search', { query: 'staging database port' });
      const write = client.request('memory.create', { content: 'Deploys go out on Tuesdays after the standup.' });
      const hits = await during;
      assert.equal(hits.hits.length, 1, 'the write before the crash was durable');
      assert.equal((await write).status, 'created');
      assert.equal(client.state, 'ready');
      assert.deepEqual(
        states.map((s) => s.state).filter((s, i, a) => a.indexOf(s) === i),
        ['restarting', 'ready'],
      );
      assert.equal(states.find((s) => s.state === 'restarting')!.restarts, 1);
    } finally {
      await client.shutdown();
    }
  });
}

test('too many crashes → failed; requests are refused with a reason; restart() recovers', async () => {
  const client = startClient(
    { ...engineDirs(), allowDebug: true },
    { backoff: { initialMs: 5, maxMs: 10, maxRestarts: 1, windowMs: 60_000 } },
  );
  await client.start();
  try {
    await rejectsWithCode(client.request('debug.crash', { how: 'exit' }), 'engine_crashed');
    await client.whenReady();
    const failed = waitFor<EngineStateChange>(
      (cb) => client.onStateChange(cb),
      (s) => s.state === 'failed',
    );
    await rejectsWithCode(client.request('debug.crash', { how: 'exit' }), 'engine_crashed');
    const f = await failed;
    assert.match(f.reason ?? '', /crashed 2 times/);
    const refused = await rejectsWithCode(client.request('stats', {}), 'engine_unavailable');
    assert.match(refused.message, /not available/);
    await client.restart();
    assert.equal(client.state, 'ready');
    assert.equal((await client.request('stats', {})).project.memories, 0);
  } finally {
    await client.shutdown();
  }
});

test('clean shutdown snapshots both stores and releases their locks', async () => {
  const dirs = engineDirs();
  const client = startClient({ ...dirs });
  const ready = await client.start();
  await client.request('memory.create', { content: 'Feature flags are read from LaunchDarkly at boot only.' });
  await client.request('memory.create', { content: 'Prefer pnpm over npm in every repository we own.', scope: 'global' });
  await client.shutdown();
  const projectDir = path.join(dirs.storageDir, 'projects', storeFolderName(ready.projectId));
  const globalDir = path.join(dirs.globalStorageDir, 'global');
  for (const dir of [projectDir, globalDir]) {
    assert.ok(fs.existsSync(path.join(dir, 'snapshot.sqlite')), `snapshot in ${dir}`);
    const store = await Store.open({ dir }); // the lock was released
    try {
      assert.equal(store.stats().replayedRecords, 0, 'everything is in the snapshot: nothing to replay');
      assert.equal(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n), 1);
    } finally {
      await store.close({ snapshot: false });
    }
  }
});

test('an engine that cannot open its store reports why and does not restart in a loop', async () => {
  const dirs = engineDirs();
  fs.writeFileSync(dirs.storageDir, 'not a folder');
  const client = startClient({ ...dirs });
  const err = await client.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof EngineError, 'start() rejects');
  assert.equal(client.state, 'failed');
  assert.ok(err.message.length > 0);
  await rejectsWithCode(client.request('stats', {}), 'engine_unavailable');
  await client.shutdown();
});

test('an encrypted store whose key is missing fails with store_key_missing (the window offers to import the recovery key), never opens empty', async () => {
  const dirs = engineDirs();
  const first = startClient({ ...dirs });
  await first.start();
  await first.request('memory.create', { content: 'The payroll export runs on the 25th of each month.' });
  // No keychain answers in tests (AGENT_MEMORY_KEYCHAIN=off): the key goes to the key file, chosen here.
  const on = await first.request('encryption.enable', { keyFile: true });
  assert.ok(on.stores.every((st) => st.encrypted));
  await first.shutdown();
  fs.rmSync(on.keyFile.path!); // another machine, or the key file lost

  const second = startClient({ ...dirs });
  const states: EngineStateChange[] = [];
  second.onStateChange((s) => states.push(s));
  const err = await second.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  try {
    assert.ok(err instanceof EngineError);
    assert.equal(err.code, 'store_key_missing');
    const failed = states.find((s) => s.state === 'failed');
    assert.equal(failed?.code, 'store_key_missing', 'the state change carries the code the window acts on');
    assert.match(failed?.reason ?? '', /is encrypted, and its key \(\w+\) is not available here .*import-recovery-key/);
    assert.equal(states.filter((s) => s.state === 'restarting').length, 0, 'no restart loop');
    await rejectsWithCode(second.request('memory.list', {}), 'engine_unavailable');
  } finally {
    await second.shutdown();
  }
});
