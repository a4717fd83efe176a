/** Candidate finders (FTS with the write path's normalization; hybrid-search adapter) and the no-candidate shortcut. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { FakeOllama } from '../../helpers/fakeOllama';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { createFtsCandidateFinder } from '../../../src/core/pipeline/ftsCandidates';
import { createSearchCandidateFinder } from '../../../src/core/pipeline/searchCandidates';
import { NO_CANDIDATES_REASON, runShadowDecisions } from '../../../src/core/pipeline/decision';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import { createGraphBoostProvider } from '../../../src/core/graph/boost';
import { writeMemoryGraph } from '../../../src/core/graph/persist';

const fakes: FakeOllama[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});

async function seeded() {
  const store = await openPipelineStore(tmpDir('am-dec-'));
  const svc = new MemoryService(store, { projectId: 'p' });
  const ids: string[] = [];
  for (const c of [
    'Redis caches user sessions for the API.',
    'The API rate limit is 100 requests per minute.',
    'Grafana dashboards show API latency.',
  ]) {
    const r = svc.create({ content: c, allowNearDuplicate: true });
    assert.equal(r.status, 'created');
    ids.push((r as { memory: { id: string } }).memory.id);
  }
  svc.delete(ids[2]!);
  return { store, svc, ids };
}

test('FTS candidates: live memories of the project, bm25 order, score = 1 / (1 + |bm25|), min_score applied', async () => {
  const { store, ids } = await seeded();
  const find = createFtsCandidateFinder(store, { projectId: 'p' });
  const c = await find('API sessions cached in Redis', 5);
  assert.deepEqual(
    c.map((x) => x.id),
    [ids[0], ids[1]],
    'the tombstoned memory is never a candidate',
  );
  for (const x of c) assert.ok(x.score > 0 && x.score <= 1);
  const raw = store.all<{ s: number }>(
    `SELECT bm25(matchinfo(memories_fts, 'pcnalx')) AS s FROM memories_fts CROSS JOIN memories m ON m.rid = memories_fts.docid WHERE memories_fts MATCH '"api" OR "sessions" OR "cached" OR "redis"' AND m.id = ?`,
    [ids[0]!],
  )[0]!.s;
  assert.equal(c[0]!.score, 1 / (1 + Math.abs(raw)));
  const strict = createFtsCandidateFinder(store, { projectId: 'p', minScore: c[1]!.score + 1e-9 });
  assert.ok((await strict('API sessions cached in Redis', 5)).every((x) => x.score >= c[1]!.score + 1e-9));
  assert.deepEqual(await find('?!', 5), []);
  assert.deepEqual(await createFtsCandidateFinder(store, { projectId: 'other' })('Redis', 5), []);
  await store.close();
});

test('hybrid-search adapter: full content loaded, tombstones skipped, score passed through', async () => {
  const { store, ids } = await seeded();
  const search = {
    async search(req: { query: string; limit?: number }) {
      assert.equal(req.query, 'rate limits');
      return { results: ids.map((id, i) => ({ memory: { id, type: 'general' }, finalScore: 0.9 - i / 10 })) };
    },
  };
  const c = await createSearchCandidateFinder(store, search)('rate limits', 5);
  assert.deepEqual(
    c.map((x) => [x.id, x.content, x.score]),
    [
      [ids[0], 'Redis caches user sessions for the API.', 0.9],
      [ids[1], 'The API rate limit is 100 requests per minute.', 0.8],
    ],
  );
  await store.close();
});

test('no candidates → ADD with the fact confidence and a fixed reason, no LLM call', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fakes.push(fake);
  const run = await runShadowDecisions(
    new OllamaProvider({ host: fake.url }),
    [{ content: 'A brand new fact about nothing else.', type: 'fact', confidence: 0.77 }],
    async () => [],
  );
  assert.equal(fake.count('generate'), 0);
  assert.equal(run.llmCalls, 0);
  assert.deepEqual(
    run.proposals.map((p) => [p.action, p.confidence, p.reason, p.usedLlm]),
    [['ADD', 0.77, NO_CANDIDATES_REASON, false]],
  );
});

test('graph boost provider for HybridSearch: a Set of ids, off when graphEnabled is false', async () => {
  const { store, ids } = await seeded();
  store.transaction((tx) =>
    writeMemoryGraph(
      tx,
      ids[0]!,
      [{ source: 'Redis', relationship: 'caches', target: 'sessions', confidence: 0.9 }],
      new Date().toISOString(),
    ),
  );
  let on = true;
  const provider = createGraphBoostProvider(store, () => on);
  assert.deepEqual(provider('redis', 500), { memoryIds: new Set([ids[0]]), timedOut: false });
  on = false;
  assert.deepEqual(provider('redis', 500), { memoryIds: new Set(), timedOut: false });
  await store.close();
});
