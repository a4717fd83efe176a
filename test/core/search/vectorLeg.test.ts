/**
 * The vector leg's requests to the VectorSearcher (hybrid.ts vectorLeg): k first, 2×k only when
 * the filters reject some of the first k, a filtered search when even that is not enough; and in
 * each case the leg still returns the best k among the memories the filters allow.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { VectorSearcher } from '../../../src/core/search/types';
import { searchFixture } from './fixture';

/** Records every search the vector leg asks for: k, and whether a filter was passed. */
function spy(inner: VectorSearcher): VectorSearcher & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    space: inner.space,
    dimension: inner.dimension,
    search(q, k, filter) {
      calls.push(filter ? `${k} filtered` : String(k));
      return inner.search(q, k, filter);
    },
    similarities: (q, rids) => inner.similarities(q, rids),
  };
}

async function corpus(n: number, tagOf: (i: number) => string) {
  const f = await searchFixture();
  const mem = [];
  for (let i = 0; i < n; i++)
    mem.push(await f.add({ content: `Deployment note ${i} about service ${i % 13} and region ${i % 7}`, tags: [tagOf(i)] }));
  return { f, mem };
}

/** The best `limit` memory ids by exact cosine among the rids `allowed` keeps (the ExactIndex is exact). */
async function exactTop(
  f: Awaited<ReturnType<typeof searchFixture>>,
  query: string,
  limit: number,
  allowed: (rid: number) => boolean,
  idOf: Map<number, string>,
): Promise<string[]> {
  const [q] = await f.embedder.embed([query], 'query');
  return f.index.search(q!, limit, allowed).map((h) => idOf.get(h.label)!);
}

describe('vector leg: k first, over-fetch only when filters reject', () => {
  // A query with no keyword match: the results are the vector leg's ranking alone (with the
  // relevance floor off: these pseudo-words are far from every memory, relevance.test.ts).
  const QUERY = 'qqzx wvvk';

  test('no filter rejects anything: one search for k', async () => {
    const { f, mem } = await corpus(200, () => 'all');
    const vs = spy(f.vectors);
    const r = await f.searcher({ vectors: vs, settings: { relevanceFloor: false } }).search({ query: QUERY, limit: 20 });
    assert.deepEqual(vs.calls, ['60']); // k = max(minCandidates 50, 20 × 3)
    const idOf = new Map(mem.map((m) => [m.rid, m.id]));
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      await exactTop(f, QUERY, 20, () => true, idOf),
    );
    await f.store.close();
  });

  test('a filter rejecting some of the first k: 2×k, and still the best k that qualify', async () => {
    const { f, mem } = await corpus(300, (i) => (i % 4 === 0 ? 'rare' : 'common'));
    const vs = spy(f.vectors);
    const r = await f.searcher({ vectors: vs, settings: { relevanceFloor: false } }).search({ query: QUERY, limit: 20, tags: ['common'] });
    assert.deepEqual(vs.calls, ['60', '120']);
    const idOf = new Map(mem.map((m) => [m.rid, m.id]));
    const common = new Set(mem.filter((m) => m.tags.includes('common')).map((m) => m.rid));
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      await exactTop(f, QUERY, 20, (rid) => common.has(rid), idOf),
    );
    await f.store.close();
  });

  test('a selective filter: k, 2×k, then a filtered search; every qualifying memory is found', async () => {
    const { f, mem } = await corpus(300, (i) => (i % 50 === 7 ? 'rare' : 'common'));
    const vs = spy(f.vectors);
    const r = await f.searcher({ vectors: vs, settings: { relevanceFloor: false } }).search({ query: QUERY, limit: 20, tags: ['rare'] });
    assert.deepEqual(vs.calls, ['60', '120', '60 filtered']);
    const idOf = new Map(mem.map((m) => [m.rid, m.id]));
    const rare = new Set(mem.filter((m) => m.tags.includes('rare')).map((m) => m.rid));
    assert.equal(rare.size, 6);
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      await exactTop(f, QUERY, 20, (rid) => rare.has(rid), idOf),
    );
    await f.store.close();
  });

  test('fewer vectors than k: nothing more to fetch, whatever the filters reject', async () => {
    const { f, mem } = await corpus(40, (i) => (i % 2 ? 'odd' : 'even'));
    const vs = spy(f.vectors);
    const r = await f.searcher({ vectors: vs, settings: { relevanceFloor: false } }).search({ query: QUERY, limit: 20, tags: ['odd'] });
    assert.deepEqual(vs.calls, ['60']);
    assert.equal(r.results.length, 20);
    for (const x of r.results) assert.deepEqual(x.memory.tags, ['odd']);
    const idOf = new Map(mem.map((m) => [m.rid, m.id]));
    const odd = new Set(mem.filter((m) => m.tags.includes('odd')).map((m) => m.rid));
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      await exactTop(f, QUERY, 20, (rid) => odd.has(rid), idOf),
    );
    await f.store.close();
  });

  test('a created-at window is a filter like tags: k, 2×k, a filtered search, and the best k written in it', async () => {
    const f = await searchFixture();
    const mem = [];
    for (let i = 0; i < 300; i++) {
      mem.push(await f.add({ content: `Deployment note ${i} about service ${i % 13} and region ${i % 7}` }));
      f.clock.advance(3_600_000);
    }
    const vs = spy(f.vectors);
    // Memories 100 … 105: six of 300, one hour apart; the window's end excludes memory 106.
    const window = { createdAfter: mem[100]!.createdAt, createdBefore: mem[106]!.createdAt };
    const r = await f.searcher({ vectors: vs, settings: { relevanceFloor: false } }).search({ query: QUERY, limit: 20, ...window });
    assert.deepEqual(vs.calls, ['60', '120', '60 filtered']);
    const idOf = new Map(mem.map((m) => [m.rid, m.id]));
    const inWindow = new Set(mem.slice(100, 106).map((m) => m.rid));
    assert.equal(r.results.length, 6);
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      await exactTop(f, QUERY, 20, (rid) => inWindow.has(rid), idOf),
    );
    await f.store.close();
  });
});
