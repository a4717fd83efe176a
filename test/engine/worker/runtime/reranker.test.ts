// The reranker settings (memory.pipelineV2.reranker*) rerank search results through the LLM
// provider: the fake Ollama (127.0.0.1) answers the order; an error or a timeout keeps the
// original order with a warning, and the model is not asked again for a minute.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import type { EngineEvent } from '../../../../src/engine/protocol';
import { FakeOllama } from '../../../helpers/fakeOllama';
import { engineDirs } from '../../harness';

test('search results are reranked by the LLM when rerankerEnabled; error and timeout keep the order, with a warning', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b', 'rerank-model'] });
  const events: EngineEvent[] = [];
  const settings = {
    'embedding.provider': 'hash',
    'memory.pipelineV2.ollamaUrl': fake.url,
    'memory.pipelineV2.rerankerEnabled': true,
    'memory.pipelineV2.rerankerModel': 'rerank-model',
    'memory.pipelineV2.rerankerTopN': 5,
    'memory.pipelineV2.rerankerTimeoutMs': 10_000,
  };
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, onEvent: (e) => events.push(e), settings });
  const warnings = () => events.filter((e): e is Extract<EngineEvent, { type: 'warning' }> => e.type === 'warning').map((e) => e.message);
  try {
    for (const content of [
      'The deploy pipeline runs the deploy step on every merge to main.',
      'Deploy previews are built for each pull request.',
      'Rolling back a deploy uses the previous container image.',
    ])
      assert.equal((await engine.memories.create({ content })).status, 'created');
    const ids = async () => (await engine.search.search({ query: 'deploy', limit: 3 })).hits.map((h) => h.memory.id);

    fake.enqueue('generate', { status: 500, body: { error: 'model crashed' } });
    const original = await ids();
    assert.equal(original.length, 3);
    assert.ok(
      warnings().some((w) => /Reranking skipped/.test(w)),
      warnings().join('\n'),
    );

    // Paused after the failure: the next search keeps the order without asking the model.
    const calls = fake.count('generate');
    fake.enqueue('generate', { reply: JSON.stringify({ order: [3, 2, 1] }) });
    assert.deepEqual(await ids(), original, 'paused: the original order');
    assert.equal(fake.count('generate'), calls, 'paused: no model call');
    await engine.reloadConfig(settings); // a new configuration starts unpaused

    assert.deepEqual(await ids(), [...original].reverse(), "the model's order wins");
    const asked = fake.requestsTo('generate').at(-1)!;
    assert.equal(asked.body.model, 'rerank-model', 'memory.pipelineV2.rerankerModel is the model asked');
    assert.match(String(asked.body.prompt), /Query: deploy/);

    // A generous deadline above (a busy machine must not time out); a short one for the timeout case.
    await engine.reloadConfig({ ...settings, 'memory.pipelineV2.rerankerTimeoutMs': 300 });
    const before = warnings().length;
    fake.enqueue('generate', { delayMs: 3000, reply: JSON.stringify({ order: [2, 3, 1] }) });
    assert.deepEqual(await ids(), original, 'a timeout keeps the original order');
    assert.ok(
      warnings()
        .slice(before)
        .some((w) => /Reranking skipped.*300 ms/.test(w)),
      warnings().join('\n'),
    );
  } finally {
    await engine.close();
    await fake.close();
  }
});

test('rerankerEnabled off (the default): no LLM call, hybrid order', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash', 'memory.pipelineV2.ollamaUrl': fake.url },
  });
  try {
    await engine.memories.create({ content: 'Deploys happen on merge.' });
    await engine.memories.create({ content: 'Deploy previews exist for pull requests.' });
    assert.equal((await engine.search.search({ query: 'deploy' })).hits.length, 2);
    assert.equal(fake.count('generate'), 0);
  } finally {
    await engine.close();
    await fake.close();
  }
});
