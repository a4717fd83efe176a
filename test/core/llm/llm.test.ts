/** OllamaProvider against the fake Ollama HTTP server: structured output, real timeouts, errors, availability, pull. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOllama, closedPortUrl, type FakeOllamaOptions } from '../../helpers/fakeOllama';
import { failsAtDeadline } from '../../helpers/deadline';
import { OllamaProvider, ollamaProviderFromConfig } from '../../../src/core/llm/ollamaProvider';
import { defaultConfig } from '../../../src/core/config/tree';
import { LlmError, isTransientLlmError } from '../../../src/core/llm/types';
import { EXTRACTION_SCHEMA } from '../../../src/core/pipeline/extraction';

/** The error a call rejects with (fails the test if it resolves). */
async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LlmError, `expected an LlmError, got ${String(e)}`);
    return e;
  }
  throw new Error('expected the call to fail');
}

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});
async function fake(opts: FakeOllamaOptions = {}) {
  const f = await FakeOllama.start({ models: ['qwen3:4b'], ...opts });
  fakes.push(f);
  return f;
}

test('generate posts /api/generate non-streaming with the JSON schema as format and returns the text', async () => {
  const f = await fake();
  f.enqueue('generate', { reply: '{"facts":[],"entities":[]}' });
  const llm = new OllamaProvider({ host: f.url });
  assert.equal(llm.id, 'ollama:qwen3:4b');
  const out = await llm.generate('hello', { format: EXTRACTION_SCHEMA as any });
  assert.equal(out, '{"facts":[],"entities":[]}');
  const req = f.requestsTo('generate')[0]!;
  assert.equal(req.body.stream, false);
  assert.equal(req.body.model, 'qwen3:4b');
  assert.deepEqual(req.body.format, JSON.parse(JSON.stringify(EXTRACTION_SCHEMA)));
  assert.equal(req.body.options.temperature, 0);
});

test('a hang is really aborted at the per-call timeout', async () => {
  const f = await fake();
  f.enqueue('generate', { hang: true });
  // The deadline is held and fired by the test (test/helpers/deadline.ts): how busy the machine is
  // decides nothing, and the next call gets the same 2 s for real.
  const llm = new OllamaProvider({ host: f.url, timeoutMs: 2000 });
  const err = await failsAtDeadline({ limitMs: 2000, start: () => llm.generate('x'), ready: () => f.count('generate') > 0 });
  assert.ok(err instanceof LlmError && err.code === 'timeout' && /within 2000 ms/.test(err.message), String(err));
  // The next call works: nothing is stuck.
  f.enqueue('generate', { reply: 'ok' });
  assert.equal(await llm.generate('y'), 'ok');
});

test('HTTP errors name the status and the first 200 characters of the body', async () => {
  const f = await fake();
  const long = 'x'.repeat(500);
  f.enqueue('generate', { status: 500, body: `model runner crashed ${long}` });
  const llm = new OllamaProvider({ host: f.url });
  const err = await failure(llm.generate('x'));
  assert.ok(err instanceof LlmError);
  assert.equal(err.code, 'http');
  assert.equal(err.status, 500);
  assert.match(err.message, /HTTP 500/);
  assert.match(err.message, /model runner crashed x+/);
  assert.ok(!err.message.includes('x'.repeat(200)), 'the body is cut at 200 characters');
  assert.equal(isTransientLlmError(err), false);
});

test('missing model → model-missing (transient); socket destroyed → connection error', async () => {
  const f = await fake();
  const llm = new OllamaProvider({ host: f.url, model: 'llama3.2:1b' });
  const err = await failure(llm.generate('x'));
  assert.equal(err.code, 'model-missing');
  assert.match(err.message, /ollama pull llama3.2:1b/);
  assert.equal(isTransientLlmError(err), true);
  const ok = new OllamaProvider({ host: f.url });
  f.enqueue('generate', { destroySocket: true });
  const e2 = await failure(ok.generate('x'));
  assert.equal(e2.code, 'connection');
});

test('Ollama absent: a clear message, available() false, transient error', async () => {
  const llm = new OllamaProvider({ host: await closedPortUrl() });
  const err = await failure(llm.generate('x'));
  assert.equal(err.code, 'unreachable');
  assert.match(err.message, /not reachable .*ollama serve/i);
  assert.equal(isTransientLlmError(err), true);
  assert.equal(await llm.available(), false);
});

test('available() checks /api/tags for the model; ensureModel pulls on request only', async () => {
  const f = await fake({ models: ['nomic-embed-text:latest'] });
  const llm = new OllamaProvider({ host: f.url, model: 'qwen3:4b' });
  assert.equal(await llm.available(), false);
  assert.equal(await llm.ensureModel({ pull: false }), 'missing');
  assert.equal(f.count('pull'), 0);
  const progress: string[] = [];
  assert.equal(await llm.ensureModel({ pull: true, onProgress: (s) => progress.push(s) }), 'pulled');
  assert.ok(progress.includes('success'));
  assert.equal(await llm.available(), true);
  assert.equal(await llm.ensureModel({ pull: true }), 'present');
});

test("a failed pull is reported with Ollama's reason", async () => {
  const f = await fake({ models: [], pullable: ['other'] });
  const llm = new OllamaProvider({ host: f.url });
  await assert.rejects(llm.ensureModel({ pull: true }), /Could not pull qwen3:4b.*file does not exist/);
});

test('a cancelled call reports aborted', async () => {
  const f = await fake();
  f.enqueue('generate', { hang: true });
  const llm = new OllamaProvider({ host: f.url, timeoutMs: 10_000 });
  const ac = new AbortController();
  const p = llm.generate('x', { signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(p, (e: unknown) => e instanceof LlmError && e.code === 'aborted');
});

test('provider from config: url, model and timeout of memory.pipelineV2', async () => {
  const f = await fake({ models: ['llama3.2:3b'] });
  const p = { ...defaultConfig().memory.pipelineV2, ollamaUrl: f.url, extractionModel: 'llama3.2:3b', extractionTimeout: 300 };
  const llm = ollamaProviderFromConfig(p);
  assert.equal(llm.model, 'llama3.2:3b');
  assert.equal(await llm.available(), true);
  f.enqueue('generate', { hang: true });
  const err = await failure(llm.generate('x'));
  assert.match(err.message, /within 300 ms/);
});

test('a generate answer that drips one character every 300 ms is aborted near the limit, not when it ends', async () => {
  const f = await fake();
  f.enqueue('generate', { reply: JSON.stringify({ facts: [{ text: 'x'.repeat(200) }] }), dripMs: 300 }); // > 1 min of dripping
  const llm = new OllamaProvider({ host: f.url, timeoutMs: 1000 });
  // Still dripping a deadline's length after the request, ended when the deadline fires.
  const err = await failsAtDeadline({ limitMs: 1000, start: () => llm.generate('x'), ready: () => f.count('generate') === 1 });
  assert.ok(err instanceof LlmError && err.code === 'timeout', String(err));
  assert.match(err.message, /within 1000 ms/);
  f.enqueue('generate', { reply: 'ok' });
  assert.equal(await llm.generate('y'), 'ok');
});

test('headers then silence: generate ends at the limit', async () => {
  const f = await fake();
  f.enqueue('generate', { reply: '{}', hangAfterHeaders: true });
  const llm = new OllamaProvider({ host: f.url, timeoutMs: 500 });
  const err = await failsAtDeadline({ limitMs: 500, start: () => llm.generate('x'), ready: () => f.count('generate') === 1 });
  assert.ok(err instanceof LlmError && err.code === 'timeout', String(err));
});
