// Each store runs its own pipeline: a memory of the global store is extracted there too.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../src/engine/engine';
import { FakeOllama } from '../../helpers/fakeOllama';
import { engineDirs } from '../harness';

test('the pipeline runs for the global store too: a global memory is extracted into global facts', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fake.enqueue('generate', { reply: JSON.stringify({ facts: [{ content: 'Prefer tabs over spaces in every repository.', type: 'preference', confidence: 0.9 }], entities: [] }) });
  const engine = await MemoryEngine.open({
    ...engineDirs(), snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash', 'memory.pipelineV2.enabled': true, 'memory.pipelineV2.ollamaUrl': fake.url, 'memory.pipelineV2.workerPollMs': 100 },
  });
  try {
    const src = await engine.memories.create({ content: 'Across all my projects I want tabs, never spaces, for indentation.', scope: 'global' });
    assert.equal(src.status, 'created');
    const facts = () => engine.memories.list({ scope: 'global', types: ['preference'] }).items;
    for (let i = 0; i < 200 && facts().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(facts().map((f) => f.preview), ['Prefer tabs over spaces in every repository.']);
    assert.equal(engine.memories.list({ scope: 'project' }).total, 0, 'nothing leaks into the project store');
    assert.equal(fake.count('generate'), 1);
  } finally {
    await engine.close();
    await fake.close();
  }
});
