// suggestions.preview and suggestions.undo through the engine's wire handlers: the preview is
// what accept writes, undo brings both memories back, sends a memory.changed event and leaves
// the suggestion pending again; an unknown id is a clear not_found.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryEngine, storeFolderName } from '../../../../src/engine/worker/engine';
import { Store } from '../../../../src/core/store/store';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import type { EngineEvent, EngineMethod, ParamsOf, ResultOf } from '../../../../src/engine/protocol';
import { engineDirs } from '../../harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const CALL = { requestId: 1, signal: new AbortController().signal, progress: () => undefined };

function call<M extends EngineMethod>(engine: MemoryEngine, method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  return Promise.resolve().then(() => handlers[method](engine, params, CALL) as ResultOf<M> | Promise<ResultOf<M>>);
}

const open = (dirs: ReturnType<typeof engineDirs>, events: EngineEvent[] = []) =>
  MemoryEngine.open({ ...dirs, snapshotTickMs: 0, onEvent: (e) => events.push(e), settings: { 'embedding.provider': 'hash' } });

test('suggestions.preview shows the merged text; suggestions.undo restores both memories and the suggestion', async () => {
  const dirs = engineDirs();
  const first = await open(dirs);
  const create = async (content: string) => {
    const r = await first.memories.create({ content });
    return r.status === 'created' ? r.memory : assert.fail(`not created: ${r.status}`);
  };
  const a = await create('Redis runs on port 6379 in development');
  const b = await create('Postgres listens on 5432. Redis runs on port 6379 in development');
  const projectId = first.projectId;
  await first.close();
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  // The hash embedder may already have suggested this pair on write; make sure there is one either way.
  const sid = store.transaction((tx) => {
    tx.run(
      `INSERT OR IGNORE INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at)
       VALUES ('s1', ?, ?, 0.9, 'pending', ?, ?)`,
      [a.id, b.id, projectId, new Date().toISOString()],
    );
    return String(
      tx.get<{ id: string }>('SELECT id FROM consolidation_suggestions WHERE memory_a_id = ? AND memory_b_id = ?', [a.id, b.id])!.id,
    );
  });
  await store.close();

  const events: EngineEvent[] = [];
  const engine = await open(dirs, events);
  try {
    const preview = await call(engine, 'suggestions.preview', { id: sid });
    assert.equal(preview.content, 'Redis runs on port 6379 in development. Postgres listens on 5432.', 'one sentence each, none twice');
    assert.equal(preview.a.content, a.content);
    assert.equal(preview.b.content, b.content);

    const merged = await call(engine, 'suggestions.accept', { id: sid });
    assert.equal(merged.content, preview.content);
    assert.equal(engine.memories.get(b.id), null);

    events.length = 0;
    const undone = await call(engine, 'suggestions.undo', { id: sid });
    assert.equal(undone.memory.content, a.content);
    assert.equal(undone.restored.id, b.id);
    assert.equal(engine.memories.get(b.id)?.content, b.content);
    assert.equal(engine.memories.get(a.id)?.content, a.content);
    assert.deepEqual(
      (await call(engine, 'suggestions.list', {})).map((s) => s.id),
      [sid],
      'pending again',
    );
    assert.ok(events.some((e) => e.type === 'memory.changed' && e.kind === 'restored' && e.ids.includes(a.id) && e.ids.includes(b.id)));
    await assert.rejects(call(engine, 'suggestions.undo', { id: sid }), /not merged/);
    await assert.rejects(call(engine, 'suggestions.preview', { id: 'nope' }), /No consolidation suggestion/);
  } finally {
    await engine.close();
  }
});

test('the dedup scan, a reject and a clear each tell every window the suggestions changed (a suggestions.changed event)', async () => {
  // No suggestion at write time (thresholds at the top); the scan finds the pair at a lower threshold.
  const events: EngineEvent[] = [];
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    onEvent: (e) => events.push(e),
    settings: { 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 },
  });
  const changedEvents = () => events.filter((e) => e.type === 'suggestions.changed');
  try {
    for (const content of [
      'The billing service sends invoices by email every Monday morning.',
      'Every Monday morning the billing service emails the invoices to customers.',
    ]) {
      const r = await engine.memories.create({ content, allowNearDuplicate: true });
      assert.equal(r.status, 'created');
    }
    await engine.reloadConfig({ 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.5, 'memory.auto_merge_threshold': 1 });
    events.length = 0;
    const found = await call(engine, 'suggestions.scan', {});
    assert.ok(found.created >= 1);
    assert.deepEqual(changedEvents(), [{ type: 'suggestions.changed', store: 'project', created: found.created }]);

    events.length = 0;
    assert.equal((await call(engine, 'suggestions.scan', {})).created, 0, 'nothing new the second time');
    assert.deepEqual(changedEvents(), [], 'a scan that found nothing new changes nothing');

    const [first] = engine.suggestions.list();
    events.length = 0;
    await call(engine, 'suggestions.reject', { id: first!.id });
    assert.deepEqual(changedEvents(), [{ type: 'suggestions.changed', store: 'project' }]);

    // Found again, then cleared: one event for the store that had some.
    await engine.reloadConfig({ 'embedding.provider': 'hash', 'memory.similarity_threshold': 0.4, 'memory.auto_merge_threshold': 1 });
    await call(engine, 'suggestions.scan', {});
    if (engine.suggestions.pendingCount() === 0) {
      await engine.memories.create({ content: 'The billing service emails invoices every Monday.', allowNearDuplicate: true });
    }
    events.length = 0;
    const cleared = await call(engine, 'suggestions.clear', {});
    assert.ok(cleared.cleared >= 1);
    assert.deepEqual(changedEvents(), [{ type: 'suggestions.changed', store: 'project' }]);
  } finally {
    await engine.close();
  }
});
