/**
 * The whole-request deadline of createOllamaFetch against a real HTTP server that stalls after
 * the headers or drips its body: the embedder and any other client call end near the limit. And
 * its size cap: an answer larger than any Ollama sends is cut off with a clear error.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { FakeOllama } from '../../helpers/fakeOllama';
import { failsAtDeadline, failsBeforeDeadline } from '../../helpers/deadline';
import { OllamaEmbedder } from '../../../src/core/embed/ollama';
import { createOllamaFetch, OllamaError } from '../../../src/core/embed/ollamaHttp';
import { EmbedderError } from '../../../src/core/embed/types';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { LlmError } from '../../../src/core/llm/types';

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});
async function fake(): Promise<FakeOllama> {
  const f = await FakeOllama.start();
  fakes.push(f);
  return f;
}

/** The error of a call that must fail. */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

// The deadlines below are proved in timer time (test/helpers/deadline.ts): each call is still
// pending 1 ms before LIMIT and fails at LIMIT, whatever the load on the machine. The faults
// would otherwise hold the call for 30 s (a 300 s header timeout) or for ever.
const LIMIT = 800;

test('an embed answer that drips one character every 200 ms is aborted at the limit', async () => {
  const f = await fake();
  f.enqueue('embed', { body: { embeddings: [Array.from({ length: 768 }, () => 0.01)] }, dripMs: 200 }); // ~5 KB: ~17 min
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: LIMIT });
  const error = await failsAtDeadline({
    limitMs: LIMIT,
    start: () => e.embed(['hello'], 'document'),
    ready: () => f.count('embed') === 1,
  });
  assert.ok(error instanceof EmbedderError && error.code === 'timeout', String(error));
  assert.match(error.message, new RegExp(`within ${LIMIT} ms`));
  // Nothing stuck: the next call answers.
  assert.equal((await e.embed(['again'], 'document')).length, 1);
});

test('headers then silence: the body read is inside the limit', async () => {
  const f = await fake();
  f.enqueue('embed', { status: 200, contentType: 'application/json', body: '{"embeddings": [[0.1,', hangAfterHeaders: true });
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: LIMIT });
  const error = await failsAtDeadline({
    limitMs: LIMIT,
    start: () => e.embed(['hello'], 'document'),
    ready: () => f.count('embed') === 1,
  });
  assert.ok(error instanceof EmbedderError && error.code === 'timeout', String(error));
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
  const error = await failsAtDeadline({ limitMs: LIMIT, start: () => client.list(), ready: () => f.count('tags') === 1 });
  assert.ok(error instanceof OllamaError && error.code === 'timeout', String(error));
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
  const stalled: string[] = [];
  await failsAtDeadline({
    limitMs: LIMIT,
    start: async () => {
      for await (const p of await short.pull({ model: 'x', stream: true })) stalled.push(p.status);
    },
    ready: () => f.count('pull') === 2,
  });
  assert.deepEqual(stalled, ['pulling manifest'], 'the line sent before the stall arrived while it streamed');
});

// ── Size caps: every answer read from Ollama is read with a byte limit ──────────────────────────

/** About `mb` MB of a valid /api/embed answer: one absurdly long vector. */
function hugeEmbedBody(mb: number): string {
  const n = Math.ceil((mb * 1024 * 1024) / 13);
  return `{"embeddings":[[${'0.0123456789,'.repeat(n)}0]]}`;
}

test('a 50 MB /api/embed answer is cut off at the limit: a clear error naming it, without waiting or parsing it', async () => {
  const f = await fake();
  const body = hugeEmbedBody(50);
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: 30_000 });
  for (const how of ['with its length declared', 'streamed without a length'] as const) {
    if (how === 'with its length declared') f.enqueue('embed', { body, contentType: 'application/json' });
    else f.enqueue('embed', { stream: [body.slice(0, body.length / 2), body.slice(body.length / 2)] });
    const heap = process.memoryUsage().heapUsed;
    const error = await failsBeforeDeadline(how, 30_000, () => e.embed(['hello'], 'document'));
    const grew = process.memoryUsage().heapUsed - heap;
    assert.ok(error instanceof EmbedderError && error.code === 'bad-response', `${how}: ${String(error)}`);
    assert.match(error.message, /more than 16 MB/, how);
    assert.match(
      error.message,
      new RegExp(`Ollama at ${f.url.replace(/[.]/g, '\\.')} sent more than 16 MB in its answer to /api/embed`),
      how,
    );
    assert.ok(grew < 120 * 1024 * 1024, `${how}: the heap grew ${Math.round(grew / 1e6)} MB (parsing it would take ~500 MB)`);
  }
  // Nothing stuck: the next call answers.
  assert.equal((await e.embed(['again'], 'document')).length, 1);
});

test('the cap holds for every call: generate, tags, show, and a streamed pull', async () => {
  const f = await fake();
  const big = 'x'.repeat(17 * 1024 * 1024);
  const provider = new OllamaProvider({ host: f.url, timeoutMs: 30_000 });
  f.enqueue('generate', { body: { response: big, done: true }, contentType: 'application/json' });
  const gen = await failure(provider.generate('hello'));
  assert.ok(gen instanceof LlmError && gen.code === 'bad-response', String(gen));
  assert.match(gen.message, /more than 16 MB in its answer to \/api\/generate/);

  f.enqueue('tags', { body: { models: [{ name: big }] }, contentType: 'application/json' });
  const probe = await new OllamaEmbedder({ host: f.url }).probe();
  assert.equal(probe.reachable, false);
  assert.match(probe.error ?? '', /more than 16 MB in its answer to \/api\/tags/);

  f.enqueue('show', { body: { modelfile: big }, contentType: 'application/json' });
  const show = await failure(new OllamaEmbedder({ host: f.url }).ensureModel({ pull: false }));
  assert.match(String((show as Error).message), /more than 16 MB in its answer to \/api\/show/);

  // A pull streams its progress: one endless line is cut off as well.
  f.enqueue('pull', { stream: [{ status: 'pulling manifest' }, { status: big }] });
  const pull = await failure(
    new OllamaEmbedder({ host: f.url, model: 'not-installed-yet' }).ensureModel({ pull: true, onProgress: () => undefined }),
  );
  assert.match(String((pull as Error).message), /more than 16 MB in its answer to \/api\/pull/);
});

test('an error answer is read only as far as its message needs (a body that never ends does not hold the call)', async () => {
  const f = await fake();
  // 200 KB of an error text, then the server never ends the body.
  const lines = Array.from({ length: 200 }, (_, i) => `boom ${i}: ${'y'.repeat(1000)}`);
  f.enqueue('embed', { status: 500, stream: lines, hangAfterHeaders: true });
  const e = new OllamaEmbedder({ host: f.url, timeoutMs: 10_000 });
  // Its deadline never fires: the call cannot have waited for the end of the body.
  const error = await failsBeforeDeadline('the embed call', 10_000, () => e.embed(['hello'], 'document'));
  assert.ok(error instanceof EmbedderError && error.code === 'http', String(error));
  assert.match(error.message, /HTTP 500 .*boom 0: y+…/);
});
