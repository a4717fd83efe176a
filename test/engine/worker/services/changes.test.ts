// The change feed through the engine's wire handlers (docs/changes.md): events.since pages each
// store's feed, a merge accepted and undone and a restored version are in it, events.wait returns
// as soon as a change is committed (or empty at its timeout, or when cancelled), every commit
// with events sends `changes.appended`, and bad params are invalid_input.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import type { EngineEvent, EngineMethod, ParamsOf, ResultOf } from '../../../../src/engine/protocol';
import { engineDirs } from '../../harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });

function call<M extends EngineMethod>(engine: MemoryEngine, method: M, params: ParamsOf<M>, signal = new AbortController().signal) {
  const ctx = { requestId: 1, signal, progress: () => undefined };
  return Promise.resolve().then(() => handlers[method](engine, params, ctx) as ResultOf<M> | Promise<ResultOf<M>>);
}

async function open(events: EngineEvent[]) {
  return MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    onEvent: (e) => events.push(e),
    settings: { 'embedding.provider': 'hash' },
  });
}

async function created(engine: MemoryEngine, content: string, scope?: 'global') {
  const r = await call(engine, 'memory.create', { content, ...(scope ? { scope } : {}) });
  return r.status === 'created' ? r.memory : assert.fail(`not created: ${r.status}`);
}

test('events.since: both stores, merges and their undo, restored versions, in order', async () => {
  const events: EngineEvent[] = [];
  const engine = await open(events);
  try {
    const a = await created(engine, 'Redis runs on port 6379 in development');
    const b = await created(engine, 'Postgres listens on 5432. Redis runs on port 6379 in development');
    const g = await created(engine, 'Prefer British spelling in every user-facing text.', 'global');
    await call(engine, 'memory.update', { id: a.id, patch: { content: 'Redis runs on port 6380 in development' } });
    await call(engine, 'memory.restoreVersion', { id: a.id, version: 1 });
    const store = engine['ctx'].stores.project; // the suggestion the dedup scan would find
    store.transaction((tx) =>
      tx.run(
        `INSERT OR IGNORE INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at)
         VALUES ('s1', ?, ?, 0.9, 'pending', ?, ?)`,
        [a.id, b.id, engine.projectId, new Date().toISOString()],
      ),
    );
    const sid = String(store.get<{ id: string }>('SELECT id FROM consolidation_suggestions WHERE memory_a_id = ?', [a.id])!.id);
    await call(engine, 'suggestions.accept', { id: sid });
    await call(engine, 'suggestions.undo', { id: sid });

    const page = await call(engine, 'events.since', {});
    assert.deepEqual(
      page.events.map((e) => [e.type, e.memoryId === a.id ? 'a' : e.memoryId === b.id ? 'b' : '?', e.version]),
      [
        ['memory.created', 'a', 1],
        ['memory.created', 'b', 1],
        ['memory.updated', 'a', 2],
        ['memory.updated', 'a', 3], // "restored version 1" is a new version
        ['memory.merged', 'b', 2], // B absorbed…
        ['memory.merged', 'a', 4], // …into A
        ['memory.updated', 'a', 5], // undo of the merge: A as before…
        ['memory.restored', 'b', 3], // …and B live again
      ],
    );
    assert.equal(page.events[4]!.mergedInto, a.id);
    const global = await call(engine, 'events.since', { store: 'global' });
    assert.deepEqual(
      global.events.map((e) => [e.type, e.memoryId, e.store, e.projectId]),
      [['memory.created', g.id, 'global', 'global']],
    );
    const later = await call(engine, 'events.since', { since: 6, limit: 1 });
    assert.deepEqual(
      later.events.map((e) => e.cursor),
      [7],
    );
    assert.equal(later.more, true);
    assert.ok(events.some((e) => e.type === 'changes.appended' && e.store === 'global' && e.cursor === 1));
    assert.ok(events.some((e) => e.type === 'changes.appended' && e.store === 'project' && e.cursor === 8));
  } finally {
    await engine.close();
  }
});

test('events.wait answers once a change is committed, empty at its timeout, and when the caller cancels', async () => {
  const events: EngineEvent[] = [];
  const engine = await open(events);
  try {
    const start = await call(engine, 'events.since', {});
    assert.equal(start.cursor, 0);
    let answered = false;
    const waiting = call(engine, 'events.wait', { since: start.cursor, timeoutMs: 30_000 }).then((p) => {
      answered = true;
      return p;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(answered, false, 'nothing to answer yet');
    const m = await created(engine, 'The nightly job uploads coverage reports to the artefact bucket.');
    const page = await waiting;
    assert.deepEqual(
      page.events.map((e) => [e.cursor, e.type, e.memoryId]),
      [[1, 'memory.created', m.id]],
    );

    const empty = await call(engine, 'events.wait', { since: 1, timeoutMs: 50 });
    assert.deepEqual(empty.events, []);
    assert.equal(empty.cursor, 1);

    const abort = new AbortController();
    const cancelled = call(engine, 'events.wait', { since: 1 }, abort.signal);
    abort.abort();
    assert.deepEqual((await cancelled).events, []);

    const already = await call(engine, 'events.wait', { since: 0, timeoutMs: 60_000 });
    assert.equal(already.events.length, 1, 'a change already there is answered at once');
  } finally {
    await engine.close();
  }
});

test('bad params of the feed are invalid_input naming the param', async () => {
  const engine = await open([]);
  try {
    const bad: [EngineMethod, Record<string, unknown>, RegExp][] = [
      ['events.since', { since: -1 }, /since: must be a cursor, a whole number ≥ 0, got -1/],
      ['events.since', { since: '5' }, /since: must be a cursor/],
      ['events.since', { limit: 1001 }, /limit: must be a whole number from 1 to 1000/],
      ['events.since', { store: 'other' }, /store: must be one of project, global/],
      ['events.wait', {}, /since: must be a cursor/],
      ['events.wait', { since: 0, timeoutMs: 60_001 }, /timeoutMs: must be a whole number of milliseconds from 0 to 60000/],
    ];
    for (const [method, params, message] of bad) {
      await assert.rejects(call(engine, method, params as never), (e: unknown) => {
        assert.equal((e as { code?: string }).code, 'invalid_input');
        assert.match((e as Error).message, message);
        return true;
      });
    }
  } finally {
    await engine.close();
  }
});
