// The handlers are the one place wire params are checked: every limit outside its documented
// range (src/core/memory/limits.ts) is invalid_input naming the range, never a silent clamp.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../src/engine/worker/engine';
import { createHandlers } from '../../../src/engine/worker/handlers';
import type { EngineMethod, ParamsOf, ResultOf } from '../../../src/engine/protocol';
import { LIMIT_RANGES } from '../../../src/core/memory/limits';
import { engineDirs } from '../harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const CALL = { signal: new AbortController().signal, progress: () => undefined };

function call<M extends EngineMethod>(engine: MemoryEngine, method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  return Promise.resolve().then(() => handlers[method](engine, params, CALL) as ResultOf<M> | Promise<ResultOf<M>>);
}

async function refused(p: Promise<unknown>, range: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.equal((e as { code?: string }).code, 'invalid_input');
    assert.match((e as Error).message, range);
    return true;
  });
}

test('every limit outside its range is invalid_input naming the range; inside it is used as given', async () => {
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash', 'search.max_limit': 40 },
  });
  try {
    for (let i = 0; i < 3; i++)
      await call(engine, 'memory.create', { content: `Service ${i} logs to the central collector on port ${9000 + i}.` });
    const cases: [EngineMethod, Record<string, unknown>, number][] = [
      ['memory.list', {}, LIMIT_RANGES.list.max],
      ['memory.listUntagged', {}, LIMIT_RANGES.list.max],
      ['search', { query: 'collector' }, 40],
      ['suggestions.list', {}, LIMIT_RANGES.suggestions.max],
      ['graph.query', { mode: 'memories' }, LIMIT_RANGES.memoryGraph.max],
      ['graph.query', {}, LIMIT_RANGES.entityGraph.max],
      ['reviews.list', {}, LIMIT_RANGES.reviews.max],
      ['history.pipelineChanges', {}, LIMIT_RANGES.pipelineChanges.max],
    ];
    for (const [method, base, max] of cases) {
      const range = new RegExp(`limit: must be a whole number from 1 to ${max} `);
      for (const bad of [0, -1, max + 1, 2.5, 'ten']) await refused(call(engine, method, { ...base, limit: bad } as never), range);
      await call(engine, method, { ...base, limit: max } as never); // the top of the range is accepted
    }
    await refused(call(engine, 'graph.entityMemories', { entityId: 'e1', limit: LIMIT_RANGES.entityMemories.max + 1 }), /from 1 to 200 /);
    await refused(call(engine, 'memory.list', { offset: -1 }), /offset: must be a whole number ≥ 0/);
    // NaN and Infinity are named as such, not as "null" (what JSON.stringify makes of them).
    await refused(
      call(engine, 'search', { query: 'collector', limit: Number.NaN }),
      /limit: must be a whole number from 1 to 40 .*got NaN$/,
    );
    await refused(call(engine, 'memory.list', { offset: Number.POSITIVE_INFINITY }), /offset: must be a whole number ≥ 0, got Infinity$/);

    assert.equal((await call(engine, 'memory.list', { limit: 2 })).items.length, 2, 'a limit inside the range is used as given');
    assert.equal((await call(engine, 'memory.list', {})).limit, LIMIT_RANGES.list.default);
    assert.equal((await call(engine, 'search', { query: 'collector', limit: 2 })).hits.length, 2);
    assert.equal((await call(engine, 'memory.listUntagged', { limit: 1 })).items.length, 1);
  } finally {
    await engine.close();
  }
});

test('wire params of the wrong type are invalid_input naming them', async () => {
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  try {
    await refused(call(engine, 'search', { query: 3 } as never), /^query: must be a string/);
    await refused(call(engine, 'search', { query: 'x', tags: 'a' } as never), /^tags: must be an array of strings/);
    await refused(call(engine, 'memory.create', null as never), /^input: must be an object/);
    await refused(call(engine, 'graph.query', { entityTypes: 'person' } as never), /^entityTypes: must be an array of strings/);
    await refused(call(engine, 'documents.ingest', { path: '/x', title: 4 } as never), /^title: must be a string/);
    await refused(call(engine, 'memory.delete', { id: 'x', reason: 5 } as never), /^reason: must be a string/);
    await refused(call(engine, 'suggestions.list', { status: 'open' } as never), /^status: must be one of pending, accepted, rejected/);
    await refused(call(engine, 'export', { path: '/tmp/x', format: 'csv' } as never), /^format: must be one of jsonl, json/);
  } finally {
    await engine.close();
  }
});
