/**
 * Embedding on the write path: failures commit the memory as pending and a background
 * backfill fills it in when the provider recovers (fake Ollama over real HTTP); pipeline
 * writes without vectors are backfilled; switching embedder re-embeds in the background with
 * progress and cancellation and switches only when complete.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { FakeOllama, closedPortUrl } from '../../helpers/fakeOllama';
import { openWritePath, sampleTexts } from '../../fixtures/writePath';
import { OllamaEmbedder } from '../../../src/core/embed/ollama';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { CachedEmbedder, EmbeddingCache } from '../../../src/core/embed/cache';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { EmbeddingBackfill } from '../../../src/core/memory/backfill';
import { EmbedOnWrite } from '../../../src/core/memory/embedOnWrite';
import { ActiveSpace } from '../../../src/core/vectorstore/activeSpace';
import { VectorStore } from '../../../src/core/vectorstore/vectorStore';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countMissing, dropEmbeddingSpace, reembedAll, recordedActiveSpace, type ReembedProgress } from '../../../src/core/memory/reembed';
import type { MemoryRecord } from '../../../src/core/memory/types';
import { driveTasks } from '../../helpers/driveTasks';
import { until } from '../../helpers/until';

test('embedding failure (HTTP 500, timeout, refused) still commits the memory as pending; the backfill makes it searchable once Ollama recovers', async () => {
  const fake = await FakeOllama.start();
  // A generous time limit for normal answers (the machine may be busy) and a short one for the hang.
  const w = await openWritePath({ dir: tmpDir('am-emb-'), embedder: new OllamaEmbedder({ host: fake.url, timeoutMs: 10_000 }) });
  try {
    const impatient = new OllamaEmbedder({ host: fake.url, timeoutMs: 300 });
    assert.equal(impatient.space, w.embedder.space);
    const impatientIngest = new EmbedOnWrite(w.store, w.svc, new ActiveSpace(impatient, w.vectors));
    fake.enqueue('embed', { status: 500, body: { error: 'model crashed' } });
    const r1 = await w.ingest.create({ content: 'The staging database is reset every night at 02:00 UTC.' });
    assert.equal(r1.result.status, 'created');
    assert.equal(r1.embedding, 'pending');
    assert.match(r1.embeddingError ?? '', /500|crashed/);
    fake.enqueue('embed', { hang: true });
    const r2 = await impatientIngest.create({ content: 'Feature flags live in config/flags.yaml and are read at startup.' });
    assert.equal(r2.embedding, 'pending');
    assert.match(r2.embeddingError ?? '', /did not answer .* within/);
    // On a busy machine the client may give up before the hang was served: drop it from the script.
    fake.reset();
    const m1 = r1.result.status === 'created' ? r1.result.memory : (undefined as never as MemoryRecord);
    assert.equal(w.svc.get(m1.id)!.embeddingStatus, 'pending');
    assert.equal(w.vectors.size, 0, 'nothing searchable by vector yet');

    const backfill = new EmbeddingBackfill(w.store, w.svc, w.space, { batchSize: 8 });
    assert.equal(backfill.pendingCount(), 2);
    fake.enqueue('embed', { status: 503, body: 'overloaded' });
    const failed = await backfill.runOnce();
    assert.equal(failed.embedded, 0);
    assert.equal(failed.remaining, 2);
    assert.match(failed.error ?? '', /503|overloaded/);

    const ok = await backfill.runOnce(); // the fake answers normally again
    assert.equal(ok.error, undefined);
    assert.equal(ok.embedded, 2);
    assert.equal(ok.remaining, 0);
    const m1b = w.svc.get(m1.id)!;
    assert.equal(m1b.embeddingStatus, 'ready');
    assert.equal(m1b.embeddingVersion, w.embedder.space);
    const q = (await w.embedder.embed([embeddingTextForInput(m1b)], 'document'))[0]!;
    assert.equal(w.vectors.search(q, 1)[0]?.rid, m1b.rid);
    assert.equal(w.vectors.size, 2);
  } finally {
    await w.close();
    await fake.close();
  }

  // Connection refused: same soft degradation.
  const w2 = await openWritePath({ dir: tmpDir('am-emb-'), embedder: new OllamaEmbedder({ host: await closedPortUrl(), timeoutMs: 500 }) });
  try {
    const r = await w2.ingest.create({ content: 'Deploys go through the release pipeline, never by hand.' });
    assert.equal(r.result.status, 'created');
    assert.equal(r.embedding, 'pending');
  } finally {
    await w2.close();
  }
});

test('the backfill, driven by the scheduler, retries with backoff until the provider recovers', async () => {
  const fake = await FakeOllama.start();
  const w = await openWritePath({ dir: tmpDir('am-emb-'), embedder: new OllamaEmbedder({ host: fake.url, timeoutMs: 10_000 }) });
  const warnings: string[] = [];
  const backfill = new EmbeddingBackfill(w.store, w.svc, w.space, {
    minDelayMs: 5,
    maxDelayMs: 40,
    idleMs: 60_000,
    onWarning: (m) => warnings.push(m),
  });
  let driven: ReturnType<typeof driveTasks> | undefined;
  try {
    fake.enqueue('embed', { status: 500, body: 'down' });
    const r = await w.ingest.create({ content: 'Logs are shipped to the central collector over TLS.' });
    assert.equal(r.embedding, 'pending');
    fake.enqueue('embed', { status: 500, body: 'down' }, { status: 500, body: 'down' }, { status: 500, body: 'down' });
    backfill.start();
    driven = driveTasks([backfill]);
    await until('the backfill to embed the memory', () => backfill.pendingCount() === 0, { timeoutMs: 15_000, intervalMs: 10 });
    assert.equal(warnings.filter((m) => /retry in/.test(m)).length, 3, warnings.join('\n'));
    assert.equal(backfill.backoffMs, 0, 'healthy again');
    assert.equal(w.vectors.size, 1);
  } finally {
    await backfill.stop();
    await driven?.stop();
    await w.close();
    await fake.close();
  }
});

test('pipeline writes without a vector are backfilled; a text update that cannot be embedded leaves the index until it is', async () => {
  const w = await openWritePath({ dir: tmpDir('am-emb-') });
  try {
    const c = w.store.transaction((tx) => w.svc.createInTx(tx, { content: 'Extraction: the team prefers squash merges on main.' }));
    assert.equal(c.status, 'created');
    if (c.status !== 'created') return;
    assert.equal(c.memory.embeddingStatus, 'pending');
    // A vector for other text than what is stored is refused (with a warning), never attached.
    const wrong = (await w.embedder.embed(['something else entirely'], 'document'))[0]!;
    const c2 = w.svc.create(
      { content: 'Another pipeline memory about code review rules.' },
      { embedding: { space: w.embedder.space, textHash: 'not-the-hash', vector: wrong } },
    );
    assert.equal(c2.status, 'created');
    if (c2.status !== 'created') return;
    assert.equal(c2.memory.embeddingStatus, 'pending');
    assert.match(c2.warnings.join(' '), /other text/);
    const backfill = new EmbeddingBackfill(w.store, w.svc, w.space);
    const step = await backfill.runOnce();
    assert.equal(step.embedded, 2);
    assert.equal(w.vectors.size, 2);

    // Update whose re-embedding fails: pending, old vector out of the index (it describes old text).
    const oldVec = (await w.embedder.embed([embeddingTextForInput(c.memory)], 'document'))[0]!;
    assert.equal(w.vectors.search(oldVec, 1)[0]?.rid, c.memory.rid);
    const failing = new HashEmbedder({ dimension: 512 });
    failing.dispose(); // embed() now rejects: stands in for a provider outage
    const outage = new EmbedOnWrite(w.store, w.svc, new ActiveSpace(failing, w.vectors));
    const u = await outage.update(c.memory.id, { content: 'Extraction: the team now prefers rebase merges on main.' });
    assert.equal(u.embedding, 'pending');
    assert.match(u.embeddingError ?? '', /disposed/);
    assert.ok(!w.vectors.search(oldVec, 2).some((h) => h.rid === c.memory.rid), 'stale vector removed');
    assert.equal((await backfill.runOnce()).embedded, 1);
    const newVec = (await w.embedder.embed([embeddingTextForInput(w.svc.get(c.memory.id)!)], 'document'))[0]!;
    assert.equal(w.vectors.search(newVec, 1)[0]?.rid, c.memory.rid);
    // Successful update: re-embedded in the same transaction.
    const u2 = await w.ingest.update(c.memory.id, { title: 'Merge policy' });
    assert.equal(u2.embedding, 'ready');
    const titled = (await w.embedder.embed([embeddingTextForInput(u2.memory)], 'document'))[0]!;
    assert.equal(w.vectors.search(titled, 1)[0]?.rid, c.memory.rid);
    assert.ok(w.vectors.search(titled, 1)[0]!.similarity > 0.999);
  } finally {
    await w.close();
  }
});

test('changing embedder re-embeds in the background with progress; the old space answers until the new one is complete', async () => {
  const dir = tmpDir('am-emb-');
  const oldE = new HashEmbedder({ dimension: 256 });
  const w = await openWritePath({ dir, embedder: oldE });
  try {
    for (const t of sampleTexts(60, 4)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    const newE = new HashEmbedder({ dimension: 512 });
    assert.notEqual(newE.space, oldE.space);
    const progress: ReembedProgress[] = [];
    let during: Promise<unknown> | undefined;
    let activeDuring = '';
    let hitsDuring = 0;
    const res = await reembedAll(w.store, w.space, newE, {
      batchSize: 16,
      onProgress: (p) => {
        progress.push(p);
        if (p.done > 0 && !during) {
          activeDuring = w.space.embedder.space;
          hitsDuring = w.space.vectors.search(new Float32Array(256).fill(1 / 16), 5).length;
          // A write while re-embedding goes to the old space and must still reach the new one.
          during = w.ingest.create({ content: 'Written during the re-embed: the api gateway rate limits per token.' });
        }
      },
    });
    await during;
    assert.equal(activeDuring, oldE.space, 'old space active during the re-embed');
    assert.equal(hitsDuring, 5, 'vector search kept working');
    assert.equal(res.status, 'switched');
    assert.deepEqual(progress[0], { done: 0, total: 60, space: newE.space });
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.done >= progress[i - 1]!.done);
    const last = progress.at(-1)!;
    assert.equal(last.done, 61);
    assert.equal(last.total, 61);
    assert.equal(w.space.embedder.space, newE.space);
    assert.equal(w.space.vectors.size, 61);
    assert.equal(countMissing(w.store, newE.space), 0);
    assert.equal(recordedActiveSpace(w.store), newE.space);
    const q = (
      await newE.embed(
        [embeddingTextForInput({ content: 'Written during the re-embed: the api gateway rate limits per token.' })],
        'document',
      )
    )[0]!;
    const hit = w.space.vectors.search(q, 1)[0]!;
    assert.ok(hit.similarity > 0.999);
    // The old space can be freed once the new one is active.
    assert.ok(res.status === 'switched');
    if (res.status === 'switched') await res.previous.vectors.close();
    const oldFile = path.join(dir, 'vectors', `${oldE.space}.hnsw`);
    assert.ok(fs.existsSync(oldFile));
    await assert.rejects(dropEmbeddingSpace(w.store, newE.space, { active: w.space.embedder.space }), /active/);
    assert.equal(await dropEmbeddingSpace(w.store, oldE.space, { active: w.space.embedder.space }), 61);
    assert.equal(fs.existsSync(oldFile), false);
    assert.equal(w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE space = ?', [oldE.space])!.n, 0);
    assert.equal(w.space.vectors.search(q, 1)[0]!.similarity > 0.999, true, 'new space unaffected');
  } finally {
    await w.close();
  }
});

test('a cancelled re-embed keeps the old space active and resumes where it stopped', async () => {
  const oldE = new HashEmbedder({ dimension: 128 });
  const w = await openWritePath({ dir: tmpDir('am-emb-'), embedder: oldE });
  try {
    for (const t of sampleTexts(50, 8)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    const newE = new HashEmbedder({ dimension: 192 });
    const ac = new AbortController();
    const r1 = await reembedAll(w.store, w.space, newE, {
      batchSize: 10,
      signal: ac.signal,
      onProgress: (p) => p.done >= 20 && ac.abort(),
    });
    assert.equal(r1.status, 'cancelled');
    assert.equal(r1.done, 20);
    assert.equal(w.space.embedder.space, oldE.space);
    assert.equal(countMissing(w.store, newE.space), 30);
    const totals: number[] = [];
    const r2 = await reembedAll(w.store, w.space, newE, { batchSize: 10, onProgress: (p) => totals.push(p.total) });
    assert.equal(r2.status, 'switched');
    assert.equal(totals[0], 30, 'only the missing ones are embedded again');
    assert.equal(r2.done, 30);
    assert.equal(w.space.vectors.size, 50);
    if (r2.status === 'switched') await r2.previous.vectors.close();
  } finally {
    await w.close();
  }
});

test('a write whose embedding finishes after the embedder was switched is embedded again in the new space', async () => {
  const oldE = new HashEmbedder({ dimension: 64 });
  const w = await openWritePath({ dir: tmpDir('am-emb-'), embedder: oldE });
  try {
    const newE = new HashEmbedder({ dimension: 96 });
    const newVectors = await VectorStore.open({ store: w.store, space: newE.space, dimension: newE.dimension });
    // The old embedder switches the space while it is computing (as a finishing re-embed would).
    let switched = false;
    const racing = Object.create(oldE) as HashEmbedder;
    racing.embed = async (texts, kind) => {
      const out = await oldE.embed(texts, kind);
      if (!switched) {
        switched = true;
        w.space.switchTo(newE, newVectors);
      }
      return out;
    };
    w.space.switchTo(racing, w.vectors);
    const ingest = new EmbedOnWrite(w.store, w.svc, w.space);
    const r = await ingest.create({ content: 'Written across an embedder switch: vectors must come from the new space.' });
    assert.equal(switched, true);
    assert.equal(r.embedding, 'ready');
    assert.ok(r.result.status === 'created');
    if (r.result.status !== 'created') return;
    assert.equal(r.result.memory.embeddingVersion, newE.space);
    assert.equal(newVectors.size, 1);
    await w.vectors.close(); // the replaced space (w.close() closes the active one)
  } finally {
    await w.close();
  }
});

test('embeddings are cached by content hash: the EmbeddingCache in memory, the embeddings table on disk', async () => {
  const inner = new HashEmbedder({ dimension: 512 });
  let calls = 0;
  const counting = Object.create(inner) as HashEmbedder;
  counting.embed = async (texts, kind) => {
    calls += texts.length;
    return inner.embed(texts, kind);
  };
  const cache = new EmbeddingCache();
  const w = await openWritePath({ dir: tmpDir('am-emb-'), embedder: new CachedEmbedder(counting, cache) });
  try {
    const A = 'The nightly job compacts the full-text index after bulk imports.';
    const B = 'The nightly job vacuums the database after bulk deletes.';
    const r = await w.ingest.create({ content: A });
    assert.equal(calls, 1);
    if (r.result.status !== 'created') throw new Error('not created');
    const id = r.result.memory.id;
    await w.ingest.update(id, { content: B });
    assert.equal(calls, 2);
    // A's row was collected (no memory has that text any more): the in-memory cache answers.
    assert.equal(w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings')!.n, 1);
    const u = await w.ingest.update(id, { content: A });
    assert.equal(u.embedding, 'ready');
    assert.equal(calls, 2, 'cache hit');
    assert.ok(cache.stats().hits >= 1);
    // Same text in another project's memory: the stored row answers, no embed call.
    const other = new MemoryService(w.store, { projectId: 'github.com/acme/other' });
    const ingestOther = new EmbedOnWrite(w.store, other, w.space);
    cache.clear();
    const o = await ingestOther.create({ content: A });
    assert.equal(o.embedding, 'ready');
    assert.equal(calls, 2, 'durable hit from the embeddings table');
  } finally {
    await w.close();
  }
});
