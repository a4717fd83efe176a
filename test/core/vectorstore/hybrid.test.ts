/**
 * The write path feeding the read path: memories written through EmbedOnWrite / the smart
 * store / a pipeline-style outer transaction are found by the very next HybridSearch through
 * its vector leg (VectorStore as the VectorSearcher), and deletes disappear from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, sampleTexts } from '../../fixtures/writePath';
import { HybridSearch } from '../../../src/core/search/hybrid';
import { SmartStore } from '../../../src/core/consolidation/smartStore';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';
import { embedTextHash } from '../../../src/core/embed/cache';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import type { EmbedKind } from '../../../src/core/embed/types';
import type { VectorSearcher } from '../../../src/core/search/types';

test('written memories are found by the next hybrid search through the vector leg', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vsh-') });
  try {
    for (const t of sampleTexts(40, 13)) await w.ingest.create({ content: t, allowNearDuplicate: true });
    const search = new HybridSearch(w.store, { projectId: w.svc.projectId, embedder: w.embedder, vectors: w.vectors });
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const s = await smart.save({ content: 'Snapshots are written atomically: temp file, fsync, rename, fsync of the directory.' });
    assert.equal(s.action, 'stored');
    const r1 = await search.search({ query: 'snapshot atomic rename fsync', limit: 5 });
    assert.equal(r1.legs.vector, true);
    const hit = r1.results.find((r) => r.memory.id === s.memory!.id);
    assert.ok(hit, 'found');
    assert.ok(hit!.vectorScore > 0, 'through the vector leg');

    // Pipeline-style: vector computed outside, create + delete in one outer transaction.
    const text = 'The extraction worker leases jobs for five minutes before they return to the queue.';
    const [v] = await w.embedder.embed([embeddingTextForInput({ content: text })], 'document');
    const created = w.store.transaction((tx) => {
      const c = w.svc.createInTx(
        tx,
        { content: text },
        { embedding: { space: w.embedder.space, textHash: embedTextHash(embeddingTextForInput({ content: text })), vector: v! } },
      );
      w.svc.deleteInTx(tx, s.memory!.id);
      return c;
    });
    assert.equal(created.status, 'created');
    const r2 = await search.search({ query: 'worker job lease queue', limit: 5 });
    const hit2 = r2.results.find((r) => created.status === 'created' && r.memory.id === created.memory.id);
    assert.ok(hit2 && hit2.vectorScore > 0);
    const r3 = await search.search({ query: 'snapshot atomic rename fsync', limit: 20 });
    assert.ok(!r3.results.some((r) => r.memory.id === s.memory!.id), 'deleted memory gone from both legs');
  } finally {
    await w.close();
  }
});

test('a search over an empty vector index does not embed its query, and answers the same', async () => {
  let embedCalls = 0;
  class CountingEmbedder extends HashEmbedder {
    override async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
      embedCalls++;
      return super.embed(texts, kind);
    }
  }
  const w = await openWritePath({ dir: tmpDir('am-vsh-'), embedder: new CountingEmbedder({ dimension: 512 }) });
  try {
    // Written without a vector (as before an embedder is chosen): the keyword leg alone can find them.
    for (const t of sampleTexts(30, 5)) w.svc.create({ content: t, allowNearDuplicate: true, ttlSeconds: null });
    w.svc.create({ content: 'The release train leaves every Thursday at noon.', allowNearDuplicate: true, ttlSeconds: null });
    assert.equal(w.vectors.size, 0);
    const deps = { projectId: w.svc.projectId, embedder: w.embedder };
    const skipping = new HybridSearch(w.store, { ...deps, vectors: w.vectors });
    // The same index without its size: the search cannot know it is empty, so it embeds.
    const v = w.vectors;
    const blind: VectorSearcher = {
      space: v.space,
      dimension: v.dimension,
      search: (q, k, f) => v.search(q, k, f),
      similarities: (q, rids) => v.similarities(q, rids),
      vectorsOf: (rids) => v.vectorsOf(rids),
    };
    const embedding = new HybridSearch(w.store, { ...deps, vectors: blind });
    for (const query of ['when does the release train leave', 'snapshot rename', 'zebra']) {
      embedCalls = 0;
      const a = await skipping.search({ query, limit: 10 });
      assert.equal(embedCalls, 0, `${query}: not embedded`);
      const b = await embedding.search({ query, limit: 10 });
      assert.equal(embedCalls, 1, `${query}: embedded when the size is not known`);
      assert.deepEqual(a.legs, b.legs, query);
      assert.equal(a.legs.vector, true, `${query}: the vector leg stays on`);
      assert.deepEqual(a.warnings, b.warnings, query);
      assert.deepEqual(a.results, b.results, query);
    }
    assert.ok((await skipping.search({ query: 'release train Thursday', limit: 5 })).results.length > 0, 'keyword hits found');

    // One memory with a vector: the query is embedded again.
    await w.ingest.create({ content: 'Deploys wait for the release train.', allowNearDuplicate: true });
    embedCalls = 0;
    const r = await skipping.search({ query: 'when does the release train leave', limit: 5 });
    assert.equal(embedCalls, 1);
    assert.ok(r.results.some((x) => x.vectorScore > 0));
  } finally {
    await w.close();
  }
});
