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
