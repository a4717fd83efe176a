/**
 * The whole-request deadline of createOllamaFetch against a real HTTP server that stalls after
 * the headers or drips its body: the embedder and any other client call end near the limit.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { FakeOllama } from '../../helpers/fakeOllama';
import { OllamaEmbedder } from '../../../src/core/embed/ollama';
import { createOllamaFetch, OllamaError } from '../../../src/core/embed/ollamaHttp';
import { EmbedderError } from '../../../src/core/embed/types';

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});
async function fake(): Promise<FakeOllama> {
  const f = await FakeOllama.start();
  fakes.push(f);
  return f;
}

/** Elapsed ms and the error of a call that must fail. */
async function timedFailure(p: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const t0 = Date.now();
  try {
    await p;
  } catch (error) {
    return { ms: Date.now() - t0, error };
  }
  throw new Error('expected the call to fail');
}

const LIMIT = 800;
/** Generous upper bound for a busy machine; the faults below would run for 30 s or for ever. */
const SLACK = 3_000;

test('an embed answer that drips one character every 200 ms is aborted near the limit', async () => {
  const f = await fake();
  f.enqueue('embed', { body: { embeddings: [Array.from({ length: 768 }, () => 0.01)] }, dripMs: 200 }); // ~5 KB: ~17 min
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: LIMIT });
  const { ms, error } = await timedFailure(e.embed(['hello'], 'document'));
  assert.ok(error instanceof EmbedderError && error.code === 'timeout', String(error));
  assert.match(error.message, new RegExp(`within ${LIMIT} ms`));
  assert.ok(ms >= LIMIT - 50 && ms < LIMIT + SLACK, `aborted after ${ms} ms`);
  // Nothing stuck: the next call answers.
  assert.equal((await e.embed(['again'], 'document')).length, 1);
});

test('headers then silence: the body read is inside the limit', async () => {
  const f = await fake();
  f.enqueue('embed', { status: 200, contentType: 'application/json', body: '{"embeddings": [[0.1,', hangAfterHeaders: true });
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: LIMIT });
  const { ms, error } = await timedFailure(e.embed(['hello'], 'document'));
  assert.ok(error instanceof EmbedderError && error.code === 'timeout', String(error));
  assert.ok(ms < LIMIT + SLACK, `aborted after ${ms} ms`);
});

test('the deadline holds even when the underlying fetch ignores the abort signal', async () => {
  const f = await fake();
  f.enqueue('tags', { hang: true });
  let aborted = false;
  const deaf: typeof fetch = (input, init) => {
    init?.signal?.addEventListener('abort', () => (aborted = true));
    return fetch(input, { ...init, signal: undefined }); // never cancelled by the caller's signal
  };
  const client = new Ollama({ host: f.url, fetch: createOllamaFetch({ host: f.url, timeoutMs: LIMIT, fetchImpl: deaf }) });
  const { ms, error } = await timedFailure(client.list());
  assert.ok(error instanceof OllamaError && error.code === 'timeout', String(error));
  assert.ok(ms < LIMIT + SLACK, `gave up after ${ms} ms`);
  assert.ok(aborted, 'the request was told to abort');
  f.reset();
});

test('a streamed pull is not buffered: progress arrives while it streams, and the limit still ends a stalled stream', async () => {
  const f = await fake();
  const progress = [{ status: 'pulling manifest' }, { status: 'pulling 1', completed: 1, total: 2 }, { status: 'success' }];
  f.enqueue('pull', { stream: progress, chunkDelayMs: 100 });
  const client = new Ollama({ host: f.url, fetch: createOllamaFetch({ host: f.url, timeoutMs: 10_000 }) });
  const seen: string[] = [];
  for await (const p of await client.pull({ model: 'x', stream: true })) seen.push(p.status);
  assert.deepEqual(seen, ['pulling manifest', 'pulling 1', 'success']);

  f.enqueue('pull', { stream: [{ status: 'pulling manifest' }], hangAfterHeaders: true });
  const short = new Ollama({ host: f.url, fetch: createOllamaFetch({ host: f.url, timeoutMs: LIMIT }) });
  const { ms } = await timedFailure(
    (async () => {
      for await (const p of await short.pull({ model: 'x', stream: true })) void p;
    })(),
  );
  assert.ok(ms < LIMIT + SLACK, `stalled stream ended after ${ms} ms`);
});
