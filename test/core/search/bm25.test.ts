// The store knows no ranking function of its own (ARCHITECTURE.md "Layers"): search registers
// bm25 on a store before it ranks, once per store, and keyword search works on a fresh store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { ensureBm25 } from '../../../src/core/search/bm25';
import { buildMemoryFilter } from '../../../src/core/search/filters';
import { ftsExpression, fullTextSearch } from '../../../src/core/search/fullText';
import { tmpDir } from '../../helpers/tmp';

const RANK_SQL = `SELECT bm25(matchinfo(memories_fts, 'pcnalx')) AS s FROM memories_fts WHERE memories_fts MATCH '"redis"'`;

test('a fresh store has no bm25; the keyword leg registers it once and ranks', async () => {
  const store = await Store.open({ dir: tmpDir('am-bm25-') });
  try {
    const svc = new MemoryService(store, { projectId: 'p' });
    svc.create({ content: 'Sessions are cached in Redis for ten minutes.' });
    svc.create({ content: 'Redis runs on port 6380 in staging; Redis Sentinel is not used.' });
    assert.throws(() => store.all(RANK_SQL), /no such function: bm25/, 'the store registers no ranking function itself');

    const hits = fullTextSearch(store, ftsExpression('redis')!, buildMemoryFilter('p', {}, new Date()), 5);
    assert.equal(hits.length, 2);
    assert.ok(hits.every((h) => h.bm25 > 0) && hits[0]!.bm25 >= hits[1]!.bm25, 'positive relevance, best first');

    const scores = store.all<{ s: number }>(RANK_SQL).map((r) => Number(r.s));
    ensureBm25(store); // a second registration is a no-op: same function, same scores
    assert.deepEqual(
      store.all<{ s: number }>(RANK_SQL).map((r) => Number(r.s)),
      scores,
    );
  } finally {
    await store.close({ snapshot: false });
  }
});
