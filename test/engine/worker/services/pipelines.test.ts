// Each store runs its own pipeline: a memory of the global store is extracted there too.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { FakeOllama } from '../../../helpers/fakeOllama';
import type { Store } from '../../../../src/core/store/store';
import { writeMemoryGraph, type Triple } from '../../../../src/core/graph/persist';
import { engineDirs } from '../../harness';

test('the pipeline runs for the global store too: a global memory is extracted into global facts', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fake.enqueue('generate', {
    reply: JSON.stringify({
      facts: [{ content: 'Prefer tabs over spaces in every repository.', type: 'preference', confidence: 0.9 }],
      entities: [],
    }),
  });
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: {
      'embedding.provider': 'hash',
      'memory.pipelineV2.enabled': true,
      'memory.pipelineV2.ollamaUrl': fake.url,
      'memory.pipelineV2.workerPollMs': 100,
    },
  });
  try {
    const src = await engine.memories.create({
      content: 'Across all my projects I want tabs, never spaces, for indentation.',
      scope: 'global',
    });
    assert.equal(src.status, 'created');
    const facts = () => engine.memories.list({ scope: 'global', types: ['preference'] }).items;
    for (let i = 0; i < 200 && facts().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      facts().map((f) => f.preview),
      ['Prefer tabs over spaces in every repository.'],
    );
    assert.equal(engine.memories.list({ scope: 'project' }).total, 0, 'nothing leaks into the project store');
    assert.equal(fake.count('generate'), 1);
  } finally {
    await engine.close();
    await fake.close();
  }
});

test('the scheduler runs the graph GC of every store: a memory deleted through the API loses its graph provenance', async () => {
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  try {
    const r = await engine.memories.create({ content: 'Design tokens live in the tokens package.', scope: 'global' });
    assert.equal(r.status, 'created');
    if (r.status !== 'created') return;
    // Graph rows written as the pipeline's extraction writes them, then the memory is deleted by the user.
    const global = (engine as unknown as { ctx: { stores: { global: Store } } }).ctx.stores.global;
    const triple: Triple = {
      source: 'Tokens Package',
      sourceType: 'concept',
      relationship: 'contains',
      target: 'Design Tokens',
      targetType: 'concept',
      confidence: 0.9,
    };
    global.transaction((tx) => writeMemoryGraph(tx, r.memory.id, [triple], new Date().toISOString()));
    const mentions = () =>
      Number(global.get<{ n: number }>('SELECT count(*) AS n FROM memory_entity_mentions WHERE memory_id = ?', [r.memory.id])!.n);
    assert.ok(mentions() > 0);
    engine.memories.delete(r.memory.id);
    (engine as unknown as { scheduler: { collectGraphGarbage(): void } }).scheduler.collectGraphGarbage();
    assert.equal(mentions(), 0, 'the global store got its graph GC');
  } finally {
    await engine.close();
  }
});
