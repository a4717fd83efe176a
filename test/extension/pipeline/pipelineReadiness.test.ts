// Before a pipeline mode switch (src/extension/pipeline/pipelineReadiness.ts): Ollama unreachable, the
// model missing, or ready — against the fake Ollama HTTP server; a missing model is pulled
// through /api/pull with progress; a failed pull is an error that says why. And the Pipeline
// view's worker line says "waiting for Ollama", never "running", while it cannot work.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closedPortUrl, FakeOllama, type FakeOllamaOptions } from '../../helpers/fakeOllama';
import { checkPipelineModel, pullPipelineModel, workerState } from '../../../src/extension/pipeline/pipelineReadiness';
import type { PipelineDiagnostics } from '../../../src/engine/protocol';

const fakes: FakeOllama[] = [];
after(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});
const start = async (opts: FakeOllamaOptions = {}) => {
  const f = await FakeOllama.start(opts);
  fakes.push(f);
  return f;
};

test('off needs nothing; an unreachable Ollama and a missing model are told apart', async () => {
  assert.deepEqual(await checkPipelineModel('off', { url: await closedPortUrl(), model: 'qwen3:4b' }), { kind: 'ready' });
  const down = await checkPipelineModel('controlled', { url: await closedPortUrl(), model: 'qwen3:4b' });
  assert.equal(down.kind, 'unreachable');
  assert.match(down.kind === 'unreachable' ? down.message : '', /Ollama is not reachable at http:\/\/127\.0\.0\.1:\d+.*waits for it/);
  const said = down.kind === 'unreachable' ? down.message : '';
  assert.equal(said.match(/not reachable/g)?.length, 1, `said once, not repeated in parentheses: ${said}`);
  const fake = await start({ models: ['nomic-embed-text:latest'] });
  const missing = await checkPipelineModel('shadow', { url: fake.url, model: 'qwen3:4b' });
  assert.equal(missing.kind, 'model-missing');
  fake.models.add('qwen3:4b');
  assert.deepEqual(await checkPipelineModel('full', { url: fake.url, model: 'qwen3:4b' }), { kind: 'ready' });
});

test('pullPipelineModel pulls through /api/pull and reports progress with percentages', async () => {
  const fake = await start({ models: [] });
  const seen: [string, number | undefined][] = [];
  assert.equal(await pullPipelineModel({ url: fake.url, model: 'qwen3:4b' }, (m, p) => seen.push([m, p])), 'pulled');
  assert.equal(fake.count('pull'), 1);
  assert.ok(
    seen.some(([, p]) => p === 100),
    JSON.stringify(seen),
  );
  assert.ok(seen.some(([m]) => m === 'success'));
  assert.equal((await checkPipelineModel('controlled', { url: fake.url, model: 'qwen3:4b' })).kind, 'ready');
  assert.equal(await pullPipelineModel({ url: fake.url, model: 'qwen3:4b' }, () => undefined), 'present', 'no second pull');
  assert.equal(fake.count('pull'), 1);
});

test('a pull Ollama refuses is an error naming the model', async () => {
  const fake = await start({ models: [], pullable: ['llama3:8b'] });
  const pull = pullPipelineModel({ url: fake.url, model: 'qwen3:4b' }, () => undefined);
  await assert.rejects(pull, /Could not pull qwen3:4b .*file does not exist/);
});

test('workerState: waiting for Ollama / the model instead of running; paused, off and restricted win', () => {
  const d = (status: Partial<PipelineDiagnostics['status']>, llm: Partial<PipelineDiagnostics['llm']>) =>
    ({
      status: { mode: 'controlled', state: 'running', paused: false, restricted: false, ...status },
      llm: { provider: 'ollama', url: 'http://127.0.0.1:11434', model: 'qwen3:4b', reachable: true, modelPresent: true, ...llm },
    }) as unknown as PipelineDiagnostics;
  assert.equal(workerState(d({}, { reachable: false, modelPresent: false })), 'waiting for Ollama');
  assert.equal(workerState(d({}, { modelPresent: false })), 'waiting for model qwen3:4b');
  assert.equal(workerState(d({}, {})), 'running');
  assert.equal(workerState(d({ state: 'degraded' }, {})), 'degraded');
  assert.equal(workerState(d({ paused: true }, { reachable: false })), 'paused');
  assert.equal(workerState(d({ mode: 'off' }, { reachable: false })), 'off');
  assert.equal(workerState(d({ restricted: true }, {})), 'not running (restricted)');
});
