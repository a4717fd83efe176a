/**
 * The built-in model on the caller's thread (useLiteInThread.ts), as the CLI's engine runs it:
 * the same vectors as the worker's, bit for bit; one model call per turn's queries; a document
 * batch that lets a query through; idle release and reload; a load that fails says why, for good.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CachedEmbedder, UseLiteEmbedder, selectEmbedder } from '../../../src/core/embed';
import { UseLiteInThreadEmbedder } from '../../../src/core/embed/useLiteInThread';
import { embedderRejection } from '../../helpers/embedderRejection';

const TEXTS = ['which package manager do we use', 'package manager use', '', '   ', 'We deploy the billing service with Helm on Fridays.'];

describe('UseLiteInThreadEmbedder (built-in model on the engine thread)', () => {
  let inThread: UseLiteInThreadEmbedder;
  let worker: UseLiteEmbedder;
  before(() => {
    inThread = new UseLiteInThreadEmbedder({ maxChars: 200 });
    worker = new UseLiteEmbedder({ maxChars: 200 });
  });
  after(() => {
    inThread.dispose();
    worker.dispose();
  });

  test('the same vectors as the worker, bit for bit, for queries and documents (empty and over-long texts too)', async () => {
    const long = 'the release train leaves on Thursdays '.repeat(20); // 760 characters, cut at 200 by both
    for (const kind of ['query', 'document'] as const) {
      const texts = [...TEXTS, long];
      const mine = await inThread.embed(texts, kind);
      const theirs = await worker.embed(texts, kind);
      assert.equal(mine.length, texts.length);
      for (const [i, v] of mine.entries()) {
        assert.equal(v.length, 512);
        assert.deepEqual([...v], [...theirs[i]!], `${kind} ${i}: ${JSON.stringify(texts[i]!.slice(0, 30))}`);
      }
    }
    assert.equal(inThread.space, worker.space);
    assert.equal(inThread.id, worker.id);
    assert.equal(inThread.loadInfo?.backend, 'wasm-simd-int16');
  });

  test('queries asked in one turn go to the model in one call', async () => {
    const before = inThread.stats();
    const [a, b] = await Promise.all([
      inThread.embed(['which package manager do we use', 'package manager use'], 'query'),
      inThread.embed(['pnpm'], 'query'),
    ]);
    const after = inThread.stats();
    assert.equal(after.modelCalls - before.modelCalls, 1);
    assert.equal(after.textsEmbedded - before.textsEmbedded, 3);
    const [alone] = await inThread.embed(['pnpm'], 'query');
    assert.deepEqual([...b![0]!], [...alone!]);
    assert.equal(a!.length, 2);
  });

  test('a document batch is embedded a text per turn: a query asked meanwhile is answered before the batch ends', async () => {
    const order: string[] = [];
    const docs = Array.from({ length: 6 }, (_, i) => `design note ${i}: the cache is warmed before the deploy`);
    const batch = inThread.embed(docs, 'document').then(() => order.push('documents'));
    await new Promise<void>((resolve) => setImmediate(resolve)); // the batch has started
    const query = inThread.embed(['how is the cache warmed'], 'query').then(() => order.push('query'));
    await Promise.all([batch, query]);
    assert.deepEqual(order, ['query', 'documents']);
  });

  test('released when idle, with a log line; the next call loads it again and gives the same vector', async () => {
    const lines: string[] = [];
    const e = new UseLiteInThreadEmbedder({ idleDisposeMs: 150, log: (l) => lines.push(l) });
    try {
      const [first] = await e.embed(['idle release'], 'document');
      assert.equal(e.running, true);
      assert.match(lines[0]!, /^built-in embedding model loaded in \d+ ms on the engine's thread$/);
      const deadline = Date.now() + 10_000;
      while (e.running && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(e.running, false, 'released after 150 ms without work');
      assert.match(lines[1]!, /released after 0 s without work; it loads again when needed/);
      const [again] = await e.embed(['idle release'], 'document');
      assert.deepEqual([...again!], [...first!]);
      assert.equal(e.stats().loads, 2);
    } finally {
      e.dispose();
    }
  });

  test('dispose rejects later calls', async () => {
    const e = new UseLiteInThreadEmbedder();
    e.dispose();
    assert.equal((await embedderRejection(e.embed(['x'], 'query'))).code, 'disposed');
    assert.equal(await e.available(), false);
  });

  test('weights that cannot be read: a load-failed error that says why, every time; available() is false', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'am-no-weights-'));
    try {
      const e = new UseLiteInThreadEmbedder({ weightsDir: empty });
      const err = await embedderRejection(e.load());
      assert.equal(err.code, 'load-failed');
      assert.match(err.message, /could not be loaded: .*vocab\.json/);
      const again = await embedderRejection(e.embed(['x'], 'document'));
      assert.equal(again, err, 'the same error, no second attempt');
      assert.equal(await e.available(), false);
      assert.equal(e.loadError, err);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('selectEmbedder gives it when asked (useLiteInThread), the worker one otherwise', async () => {
    const inner = async (useLiteInThread: boolean) => {
      const sel = await selectEmbedder({ provider: 'builtin', useLiteInThread });
      try {
        return (sel.embedder as CachedEmbedder).inner;
      } finally {
        sel.embedder.dispose();
      }
    };
    assert.ok((await inner(true)) instanceof UseLiteInThreadEmbedder);
    assert.ok((await inner(false)) instanceof UseLiteEmbedder);
  });
});
