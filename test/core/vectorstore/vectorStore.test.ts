/**
 * Vector store wired to the durable store: embed-on-write, sync with every committed change
 * (including pipeline-style writes inside an outer transaction), persistence with watermark
 * + catch-up, background rebuild with exact search meanwhile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, exactNeighbours, sampleTexts, PROJECT } from '../../fixtures/writePath';
import { embeddingTextForInput, embeddingHashOf } from '../../../src/core/memory/embedding';
import { embedTextHash } from '../../../src/core/embed/cache';
import { changesSince, currentVectorSeq, liveVectorsAfter } from '../../../src/core/vectorstore/changes';
import { readIndexFileInfo } from '../../../src/core/vector/indexFile';
import { VectorStore, withHeadroom } from '../../../src/core/vectorstore/vectorStore';
import type { HashEmbedder } from '../../../src/core/embed/hashEmbedder';

async function embedQuery(e: HashEmbedder, text: string): Promise<Float32Array> {
  return (await e.embed([text], 'query'))[0]!;
}

test('embed on write: the memory is searchable by the very next request, with its stored vector', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    const r = await w.ingest.create({ content: 'The sqlite snapshot is written atomically with fsync and rename.', title: 'Snapshots' });
    assert.equal(r.result.status, 'created');
    assert.equal(r.embedding, 'ready');
    if (r.result.status !== 'created') return;
    const m = r.result.memory;
    assert.equal(m.embeddingStatus, 'ready');
    assert.equal(m.embeddingVersion, w.embedder.space);
    assert.equal(m.embeddingHash, embeddingHashOf(m.title, m.content));
    const row = w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE space = ? AND text_hash = ?', [
      w.embedder.space,
      m.embeddingHash,
    ]);
    assert.equal(row?.n, 1);
    const q = (await w.embedder.embed([embeddingTextForInput({ title: 'Snapshots', content: m.content })], 'document'))[0]!;
    const hits = w.vectors.search(q, 3);
    assert.equal(hits[0]?.rid, m.rid);
    assert.ok(hits[0]!.similarity > 0.999, `self similarity ${hits[0]!.similarity}`);
    const sims = w.vectors.similarities(q, [m.rid, 999_999]);
    assert.ok(Math.abs(sims.get(m.rid)! - hits[0]!.similarity) < 1e-5);
    assert.equal(sims.has(999_999), false);
  } finally {
    await w.close();
  }
});

test('pipeline-style writes inside an outer transaction are visible to the next search without telling the vector store', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    const texts = sampleTexts(30, 7);
    const ids: string[] = [];
    for (const t of texts) {
      const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
      assert.equal(r.result.status, 'created');
      if (r.result.status === 'created') ids.push(r.result.memory.id);
    }
    await w.vectors.whenReady();
    assert.equal(w.vectors.size, 30);
    // The pipeline computes vectors outside, then creates, updates and deletes in ONE transaction.
    const newText = 'Extraction found that the release branch is cut every second Tuesday.';
    const updText = 'The cache now evicts least recently used vectors first when it is full.';
    const newHash = embedTextHash(embeddingTextForInput({ content: newText }));
    const updHash = embedTextHash(embeddingTextForInput({ content: updText }));
    const [newVec, updVec] = await w.embedder.embed(
      [embeddingTextForInput({ content: newText }), embeddingTextForInput({ content: updText })],
      'document',
    );
    const deleted = w.svc.get(ids[3]!)!;
    const updated = w.svc.get(ids[5]!)!;
    const noVector = 'Pipeline wrote this one without a vector; the backfill embeds it later.';
    const created = w.store.transaction((tx) => {
      const c = w.svc.createInTx(tx, { content: newText }, { embedding: { space: w.embedder.space, textHash: newHash, vector: newVec! } });
      w.svc.createInTx(tx, { content: noVector });
      w.svc.updateInTx(
        tx,
        updated.id,
        { content: updText },
        { embedding: { space: w.embedder.space, textHash: updHash, vector: updVec! } },
      );
      w.svc.deleteInTx(tx, deleted.id);
      return c;
    });
    assert.equal(created.status, 'created');
    if (created.status !== 'created') return;
    const hitNew = w.vectors.search(newVec!, 1);
    assert.equal(hitNew[0]?.rid, created.memory.rid);
    const hitUpd = w.vectors.search(updVec!, 1);
    assert.equal(hitUpd[0]?.rid, updated.rid);
    assert.ok(hitUpd[0]!.similarity > 0.999);
    const delVec = (await w.embedder.embed([embeddingTextForInput(deleted)], 'document'))[0]!;
    assert.ok(!w.vectors.search(delVec, 31).some((h) => h.rid === deleted.rid), 'deleted memory must not be found');
    assert.equal(w.vectors.size, 30, '30 + 1 new − 1 deleted; the vector-less one is not indexed');
    // The old vector of the updated memory is gone from the index (overwritten) and from the table.
    const oldHash = updated.embeddingHash!;
    assert.equal(w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE text_hash = ?', [oldHash])!.n, 0);
    // Restore brings the tombstoned memory's vector back.
    w.svc.restore(deleted.id);
    assert.equal(w.vectors.search(delVec, 1)[0]?.rid, deleted.rid);
    // Results agree with brute force over the database.
    const q = await embedQuery(w.embedder as HashEmbedder, 'cache evicts vectors');
    assert.deepEqual(
      w.vectors.search(q, 5).map((h) => h.rid),
      exactNeighbours(w.store, w.embedder.space, 512, q, 5).map((h) => h.rid),
    );
  } finally {
    await w.close();
  }
});

test('filter runs inside the search: k results that all pass it', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    for (const t of sampleTexts(60, 3)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    await w.vectors.whenReady();
    const q = await embedQuery(w.embedder as HashEmbedder, 'the parser streams tokens');
    const even = (rid: number) => rid % 2 === 0;
    const hits = w.vectors.search(q, 10, even);
    assert.equal(hits.length, 10);
    assert.ok(hits.every((h) => even(h.rid)));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.similarity >= hits[i]!.similarity);
  } finally {
    await w.close();
  }
});

test('save, more writes, reopen: loaded from the file and caught up, never rebuilt', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir });
  const texts = sampleTexts(120, 11);
  const rids: number[] = [];
  for (const t of texts.slice(0, 100)) {
    const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
    if (r.result.status === 'created') rids.push(r.result.memory.rid);
  }
  await w.vectors.whenReady();
  await w.vectors.save(); // a no-op when the finished rebuild already saved this state
  const saved = await readIndexFileInfo(path.join(dir, 'vectors', `${w.embedder.space}.hnsw`));
  assert.equal(saved.count, 100, 'index saved with 100 vectors');
  assert.equal(saved.watermark, currentVectorSeq(w.store));
  const watermark = saved.watermark;
  // Writes after the save: creates, a delete and a content update.
  for (const t of texts.slice(100)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  const victim = w.svc.list({ limit: 100 }).items.at(-1)!;
  w.svc.delete(victim.id);
  const changed = w.svc.list({ limit: 100 }).items.at(-2)!;
  await w.ingest.update(changed.id, { content: 'Completely new text about deployment windows and rollbacks.' });
  assert.ok(currentVectorSeq(w.store) > watermark);
  await w.close({ saveIndex: false }); // the index file still has the old watermark

  const info = await readIndexFileInfo(path.join(dir, 'vectors', `${w.embedder.space}.hnsw`));
  assert.equal(info.watermark, watermark);
  const w2 = await openWritePath({ dir });
  try {
    const st = w2.vectors.stats();
    assert.equal(st.openedFrom, 'file');
    assert.equal(st.state, 'ready');
    assert.equal(st.rebuildReason, undefined);
    assert.ok(st.caughtUp >= 22, `caught up ${st.caughtUp} changes`);
    assert.equal(w2.vectors.size, 119);
    for (const qt of ['deployment windows rollbacks', 'the scheduler locks jobs', 'webview frames']) {
      const q = await embedQuery(w2.embedder as HashEmbedder, qt);
      assert.deepEqual(
        w2.vectors.search(q, 5).map((h) => h.rid),
        exactNeighbours(w2.store, w2.embedder.space, 512, q, 5).map((h) => h.rid),
        qt,
      );
    }
  } finally {
    await w2.close();
  }
});

test('corrupt, missing or re-parameterized index file: exact search answers while HNSW is rebuilt in the background', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir, params: { efSearch: 300 } });
  for (const t of sampleTexts(150, 5)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  await w.vectors.whenReady(); // closing during a rebuild cancels it (and saves nothing)
  await w.close();
  const file = path.join(dir, 'vectors', `${w.embedder.space}.hnsw`);
  const queries = ['the router shards messages', 'logger snapshots files after a crash', 'tokenizer compresses rows'];

  const checkRebuild = async (label: string, params: { M?: number; efSearch: number }, expectReason: RegExp) => {
    const w2 = await openWritePath({ dir, params });
    try {
      assert.equal(w2.vectors.state, 'rebuilding', `${label}: searches are answered by the exact index`);
      assert.match(w2.vectors.stats().rebuildReason ?? '', expectReason);
      const truth = [];
      for (const qt of queries) {
        const q = await embedQuery(w2.embedder as HashEmbedder, qt);
        const exact = exactNeighbours(w2.store, w2.embedder.space, 512, q, 5).map((h) => h.rid);
        truth.push({ q, exact });
      }
      // Only microtasks have run since open; the swap needs a macrotask turn: still exact here.
      assert.equal(w2.vectors.state, 'rebuilding');
      assert.deepEqual(
        w2.vectors.search(truth[0]!.q, 5).map((h) => h.rid),
        truth[0]!.exact,
        `${label}: exact answers`,
      );
      // A write during the rebuild is seen by the exact index now and by HNSW after the swap.
      const during = await w2.ingest.create({ content: 'Written while the index was being rebuilt: shard rebalancing notes.' });
      assert.equal(during.result.status, 'created');
      const dq = (
        await w2.embedder.embed(
          [embeddingTextForInput({ content: 'Written while the index was being rebuilt: shard rebalancing notes.' })],
          'document',
        )
      )[0]!;
      const rid = during.result.status === 'created' ? during.result.memory.rid : -1;
      assert.equal(w2.vectors.search(dq, 1)[0]?.rid, rid);
      await w2.vectors.whenReady();
      assert.equal(w2.vectors.state, 'ready');
      assert.equal(w2.vectors.search(dq, 1)[0]?.rid, rid);
      for (const t of truth) {
        const exactNow = exactNeighbours(w2.store, w2.embedder.space, 512, t.q, 5).map((h) => h.rid);
        assert.deepEqual(
          w2.vectors.search(t.q, 5).map((h) => h.rid),
          exactNow,
          `${label}: HNSW after rebuild`,
        );
      }
      w2.svc.delete(w2.svc.get(during.result.status === 'created' ? during.result.memory.id : '')!.id);
    } finally {
      await w2.close();
    }
    // The rebuilt index was saved: the next open uses it.
    const w3 = await openWritePath({ dir, params });
    try {
      assert.equal(w3.vectors.stats().openedFrom, 'file', `${label}: reopened from the rebuilt file`);
      assert.equal(w3.vectors.size, 150);
    } finally {
      await w3.close();
    }
  };

  // 1. Corrupt payload byte.
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 100] ^= 0xff;
  fs.writeFileSync(file, bytes);
  await checkRebuild('corrupt', { efSearch: 300 }, /checksum|unusable/);
  // 2. Missing file.
  fs.unlinkSync(file);
  await checkRebuild('missing', { efSearch: 300 }, /no index file/);
  // 3. Different M.
  await checkRebuild('params', { M: 8, efSearch: 300 }, /parameters changed/);
});

test('an index file ahead of the database (older snapshot restored) is not trusted', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir });
  for (const t of sampleTexts(20, 9)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  await w.vectors.whenReady();
  await w.close();
  const file = path.join(dir, 'vectors', `${w.embedder.space}.hnsw`);
  const keep = fs.readFileSync(file);
  // A fresh store (as if everything after an old snapshot were lost) with fewer memories.
  const dir2 = tmpDir('am-vs-');
  fs.mkdirSync(path.join(dir2, 'vectors'));
  fs.writeFileSync(path.join(dir2, 'vectors', `${w.embedder.space}.hnsw`), keep);
  const w2 = await openWritePath({ dir: dir2 });
  try {
    for (const t of sampleTexts(3, 2)) await w2.ingest.create({ content: t, allowNearDuplicate: true });
    await w2.vectors.whenReady();
    assert.equal(w2.vectors.size, 3);
    assert.match(w2.vectors.stats().rebuildReason ?? '', /ahead of the database/);
  } finally {
    await w2.close();
  }
});

test('VectorStore refuses a space name that is not file-name safe', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    await assert.rejects(VectorStore.open({ store: w.store, space: '../evil', dimension: 8 }), /file-name safe/);
  } finally {
    await w.close();
  }
});

test('the vector store only looks at its own space', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    await w.ingest.create({ content: 'A memory embedded in the 512-d hash space only.' });
    const other = await VectorStore.open({ store: w.store, space: 'hash-fh1-64', dimension: 64 });
    await other.whenReady();
    assert.equal(other.size, 0);
    await other.close();
    assert.equal(w.svc.count(), 1);
    assert.equal(PROJECT, w.svc.projectId);
  } finally {
    await w.close();
  }
});

test('a hard delete (purge) by any writer leaves the index and drops the unshared vector', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    const a = await w.ingest.create({ content: 'Purge me: temporary note about the flaky integration test.' });
    const b = await w.ingest.create({ content: 'Keep me: the integration tests need docker running.' });
    assert.ok(a.result.status === 'created' && b.result.status === 'created');
    if (a.result.status !== 'created' || b.result.status !== 'created') return;
    const ma = a.result.memory;
    assert.equal(w.vectors.size, 2);
    w.store.transaction((tx) => tx.run('DELETE FROM memories WHERE id = ?', [ma.id]));
    assert.equal(w.vectors.size, 1);
    const q = (await w.embedder.embed([embeddingTextForInput(ma)], 'document'))[0]!;
    assert.ok(!w.vectors.search(q, 2).some((h) => h.rid === ma.rid));
    assert.equal(w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE text_hash = ?', [ma.embeddingHash])!.n, 0);
    assert.equal(w.store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings')!.n, 1);
  } finally {
    await w.close();
  }
});

test('a long tail of changes is caught up in the background while exact search answers', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir });
  const texts = sampleTexts(90, 17);
  for (const t of texts.slice(0, 50)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  await w.vectors.whenReady();
  await w.vectors.save();
  for (const t of texts.slice(50)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  w.svc.delete(w.svc.list({ limit: 100 }).items.at(-1)!.id); // the oldest: saved in the file
  await w.close({ saveIndex: false });

  const w2 = await openWritePath({ dir, inlineCatchUpMax: 5 });
  try {
    const st = w2.vectors.stats();
    assert.equal(st.openedFrom, 'file');
    assert.equal(st.backgroundCatchUp, true);
    assert.equal(st.state, 'rebuilding');
    const q = (await w2.embedder.embed(['the indexer throttles vectors per workspace'], 'query'))[0]!;
    const truth = exactNeighbours(w2.store, w2.embedder.space, 512, q, 5).map((h) => h.rid);
    assert.equal(w2.vectors.state, 'rebuilding');
    assert.deepEqual(
      w2.vectors.search(q, 5).map((h) => h.rid),
      truth,
      'exact answers during the catch-up',
    );
    assert.equal(w2.vectors.size, 89);
    await w2.vectors.whenReady();
    assert.equal(w2.vectors.state, 'ready');
    assert.equal(w2.vectors.stats().caughtUp, 41, '40 new memories + 1 deleted');
    assert.equal(w2.vectors.stats().rebuildReason, undefined, 'caught up, not rebuilt');
    assert.deepEqual(
      w2.vectors.search(q, 5).map((h) => h.rid),
      truth,
      'HNSW after the catch-up',
    );
  } finally {
    await w2.close();
  }
  const w3 = await openWritePath({ dir, inlineCatchUpMax: 5 });
  try {
    assert.equal(w3.vectors.state, 'ready', 'the caught-up index was saved');
    assert.equal(w3.vectors.stats().caughtUp, 0);
    assert.equal(w3.vectors.size, 89);
  } finally {
    await w3.close();
  }
});

test('closing during a background rebuild cancels it cleanly; the next open rebuilds', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir });
  for (const t of sampleTexts(40, 23)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  assert.equal(w.vectors.state, 'rebuilding', 'no macrotask has run: the build has not swapped yet');
  await w.close();
  assert.equal(fs.existsSync(path.join(dir, 'vectors', `${w.embedder.space}.hnsw`)), false);
  const w2 = await openWritePath({ dir });
  try {
    assert.equal(w2.vectors.stats().rebuildReason, 'no index file');
    assert.equal(w2.vectors.size, 40, 'the exact index answers at once');
    await w2.vectors.whenReady();
    assert.equal(w2.vectors.size, 40);
  } finally {
    await w2.close();
  }
});

test('the index keeps free slots after a rebuild and after a load, so the next memory does not make it grow (a copy of every vector)', async () => {
  const dir = tmpDir('am-vs-');
  const w = await openWritePath({ dir });
  try {
    for (const t of sampleTexts(40, 29)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    await w.vectors.whenReady();
    assert.equal(w.vectors.stats().capacity, withHeadroom(0), 'rebuilt from an empty table: 1,024 free slots');
    await w.vectors.close({ save: true });
    const vs = await VectorStore.open({ store: w.store, space: w.embedder.space, dimension: w.embedder.dimension });
    try {
      assert.equal(vs.stats().openedFrom, 'file');
      assert.equal(vs.stats().capacity, withHeadroom(40));
      assert.equal(withHeadroom(100_000), 125_000);
    } finally {
      await vs.close({ save: false });
    }
  } finally {
    await w.store.close();
  }
});

test("a loaded index has room for its file's vectors and the changes since it was saved, with headroom", async () => {
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    for (const t of sampleTexts(40, 31)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    await w.vectors.whenReady();
    await w.vectors.save();
    for (const t of sampleTexts(30, 32)) await w.ingest.create({ content: `${t} (after the save)`, allowNearDuplicate: true });
    await w.vectors.close({ save: false });
    const vs = await VectorStore.open({ store: w.store, space: w.embedder.space, dimension: w.embedder.dimension });
    try {
      assert.equal(vs.stats().openedFrom, 'file');
      assert.equal(vs.stats().caughtUp, 30, 'the 30 written after the save came from the change marks');
      assert.equal(vs.size, 70);
      assert.equal(vs.stats().capacity, withHeadroom(70), "room for the file's 40 and the 30 changes, with headroom");
    } finally {
      await vs.close({ save: false });
    }
  } finally {
    await w.store.close();
  }
});

test('a rebuild reads in its pages only the vectors unchanged since it started: the changed ones come once, as changes', async () => {
  // VectorStore.build: a vector read in a page and again as a change was an HNSW update (ten inserts' cost).
  const w = await openWritePath({ dir: tmpDir('am-vs-') });
  try {
    const made: { rid: number; id: string }[] = [];
    for (const t of sampleTexts(12, 3)) {
      const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
      if (r.result.status === 'created') made.push({ rid: r.result.memory.rid, id: r.result.memory.id });
    }
    const rids = made.map((m) => m.rid);
    const seq0 = currentVectorSeq(w.store);
    const later: number[] = [];
    for (const t of sampleTexts(5, 4)) {
      const r = await w.ingest.create({ content: `${t} (written after the rebuild began)`, allowNearDuplicate: true });
      if (r.result.status === 'created') later.push(r.result.memory.rid);
    }
    await w.ingest.update(made[0]!.id, { content: 'A new text for the first memory, embedded again.' });
    const scope = { space: w.embedder.space, dim: w.embedder.dimension };
    const all = liveVectorsAfter(w.store, scope, 0, 100).map((c) => c.rid);
    assert.deepEqual(all, [...rids, ...later]);
    const unchanged = liveVectorsAfter(w.store, scope, 0, 100, seq0).map((c) => c.rid);
    assert.deepEqual(unchanged, rids.slice(1), 'rows changed after seq0 (new or updated) are left to changesSince');
    const changed = changesSince(w.store, scope, seq0).map((c) => c.rid);
    assert.deepEqual(new Set(changed), new Set([...later, rids[0]!]));
  } finally {
    await w.close();
  }
});
