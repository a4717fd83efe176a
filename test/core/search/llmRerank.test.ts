// The LLM reranker against a real HTTP fake of Ollama on 127.0.0.1, through the real provider.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOllama } from '../../helpers/fakeOllama';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { llmReranker, rerankPrompt } from '../../../src/core/search/llmRerank';
import { pausingReranker, rerank, RERANK_PAUSE_MS } from '../../../src/core/search/rerank';

const CANDS = ['Auth uses JWT.', 'Dark mode is preferred.', 'Port 8080 for dev.', 'Tests run in parallel.'].map((content, i) => ({
  id: `m${i}`,
  content,
  score: 1 - i / 10,
}));
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe('LLM reranker (fake Ollama)', () => {
  let fake: FakeOllama;
  let provider: OllamaProvider;
  before(async () => {
    fake = await FakeOllama.start({ models: ['qwen3:4b'] });
    provider = new OllamaProvider({ host: fake.url, model: 'qwen3:4b' });
  });
  after(async () => {
    await fake.close();
  });

  test('the prompt numbers every candidate and carries the query', () => {
    const p = rerankPrompt('which port?', CANDS);
    assert.match(p, /Query: which port\?/);
    for (let i = 0; i < CANDS.length; i++) assert.ok(p.includes(`${i + 1}. ${CANDS[i]!.content}`));
  });

  test('the model order is applied; <think> and fences are tolerated; the tail is kept', async () => {
    fake.enqueue('generate', { reply: '<think>port is 3</think>```json\n{"order":[3,1]}\n```' });
    const out = await rerank('which port?', CANDS, llmReranker(provider), { topN: 3, timeoutMs: 5000 });
    assert.equal(out.status, 'reranked');
    assert.deepEqual(ids(out.items), ['m2', 'm0', 'm1', 'm3']);
  });

  test('garbage, HTTP errors and a hanging model keep the original order', async () => {
    fake.enqueue('generate', { reply: 'I think number three.' });
    const bad = await rerank('q', CANDS, llmReranker(provider), { topN: 4, timeoutMs: 5000 });
    assert.equal(bad.status, 'failed');
    assert.deepEqual(ids(bad.items), ids(CANDS));
    fake.enqueue('generate', { status: 500, body: { error: 'model crashed' } });
    const http = await rerank('q', CANDS, llmReranker(provider), { topN: 4, timeoutMs: 5000 });
    assert.equal(http.status, 'failed');
    assert.deepEqual(ids(http.items), ids(CANDS));
    fake.enqueue('generate', { hang: true });
    const slow = await rerank('q', CANDS, llmReranker(provider), { topN: 4, timeoutMs: 150 });
    assert.equal(slow.status, 'timeout');
    assert.deepEqual(ids(slow.items), ids(CANDS));
  });
});

describe('a reranking model that fails or hangs is paused (pausingReranker)', () => {
  const order = (xs: { id: string }[]) => xs.map((x) => x.id);
  test('after an error: the original order without a call until the pause is over', async () => {
    let now = 1_000_000;
    let calls = 0;
    let fail = true;
    const inner = async (_q: string, cands: typeof CANDS) => {
      calls++;
      if (fail) throw new Error('model crashed');
      return [...cands].reverse();
    };
    const provider = pausingReranker(inner, { now: () => now });
    const cfg = { topN: 4, timeoutMs: 1000 };
    assert.equal((await rerank('q', CANDS, provider, cfg)).status, 'failed');
    fail = false;
    const paused = await rerank('q', CANDS, provider, cfg);
    assert.deepEqual(order(paused.items), order(CANDS));
    assert.equal(calls, 1, 'not asked while paused');
    now += RERANK_PAUSE_MS + 1;
    assert.deepEqual(order((await rerank('q', CANDS, provider, cfg)).items), order(CANDS).reverse());
    assert.equal(calls, 2);
  });

  test('an answer later than the deadline pauses too (the LLM provider ends a hanging call at its own limit)', async () => {
    let now = 1_000_000;
    let calls = 0;
    let release: (v: typeof CANDS) => void = () => undefined;
    const hanging = (_q: string, _c: typeof CANDS) => {
      calls++;
      return new Promise<typeof CANDS>((resolve) => (release = resolve));
    };
    const provider = pausingReranker(hanging, { now: () => now });
    const cfg = { topN: 4, timeoutMs: 50 };
    assert.equal((await rerank('q', CANDS, provider, cfg)).status, 'timeout');
    now += 51;
    release(CANDS);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order((await rerank('q', CANDS, provider, cfg)).items), order(CANDS));
    assert.equal(calls, 1, 'paused: not asked again');
  });
});
