import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CommonTermFilter } from '../../../src/core/search/commonTerms';
import { TermStats } from '../../../src/core/search/termStats';
import { searchFixture } from './fixture';

async function corpus() {
  const f = await searchFixture();
  const inputs = Array.from({ length: 60 }, (_, i) => ({
    content: `${i < 45 ? 'widget' : 'gadget'} note ${i}${i % 20 === 3 ? ' zebra crossing' : ''} item${i}`,
    ttlSeconds: null,
    allowNearDuplicate: true,
  }));
  assert.equal(f.svc.createMany(inputs).filter((r) => r.status === 'created').length, 60);
  return f;
}

describe('dynamic stop-words (large stores)', () => {
  test('terms in more than the share of rows are dropped; one term always stays; small stores untouched', async () => {
    const f = await corpus();
    const filter = new CommonTermFilter(new TermStats(f.store), { share: 0.5, minRows: 10 });
    assert.equal(filter.rowCount(), 60);
    assert.deepEqual(filter.prune(['"widget"', '"zebra"']), { kept: ['"zebra"'], dropped: ['"widget"'] });
    // gadget (15 rows) is under 50 %; note (60) and widget (45) are over: all common → exactly one kept.
    const both = filter.prune(['"note"', '"widget"']);
    assert.equal(both.kept.length, 1);
    assert.deepEqual([...both.kept, ...both.dropped].sort(), ['"note"', '"widget"']);
    assert.deepEqual(filter.prune(['"gadget"', '"note"']), { kept: ['"gadget"'], dropped: ['"note"'] });
    assert.deepEqual(filter.prune(['"widget"']), { kept: ['"widget"'], dropped: [] });
    assert.deepEqual(
      new CommonTermFilter(new TermStats(f.store), { share: 0.5, minRows: 1000 }).prune(['"widget"', '"zebra"']).dropped,
      [],
    );
    assert.deepEqual(new CommonTermFilter(new TermStats(f.store), { share: 0, minRows: 1 }).prune(['"widget"', '"zebra"']).dropped, []);
    await f.store.close();
  });

  test('prune() agrees with a direct count per word (cached and new words mixed, prefix and phrase terms, a repeated word)', async () => {
    const f = await corpus();
    const terms = [
      '"widget"',
      '"gadget"',
      '"note"',
      '"zebra"',
      '"crossing"',
      '"absent"',
      '"item1"',
      '"item2"',
      '"item22"',
      '"item3"',
      'item*',
      '"zebra crossing"',
      '"widget note"',
      '"nothing here"',
      '"widget"',
    ];
    const count = (t: string) =>
      Number(f.store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?', [t])!.n);
    for (const share of [0.05, 0.2, 0.5, 0.9]) {
      const filter = new CommonTermFilter(new TermStats(f.store), { share, minRows: 10 });
      const limit = Math.floor(share * 60);
      const dfs = terms.map(count);
      const common = terms.filter((_, i) => dfs[i]! > limit);
      // A few terms cached first, so the second call mixes cached and new ones.
      filter.prune(terms.slice(0, 3));
      const got = filter.prune(terms);
      if (common.length < terms.length)
        assert.deepEqual(got, { kept: terms.filter((_, i) => dfs[i]! <= limit), dropped: common }, `share ${share}`);
      else assert.equal(got.kept.length, 1);
    }
    await f.store.close();
  });

  test('the search leaves them out with a warning; the default leaves small stores alone', async () => {
    const f = await corpus();
    const pruned = f.searcher({ embedder: undefined, vectors: undefined, settings: { commonTermShare: 0.5, commonTermMinRows: 10 } });
    const r = await pruned.search({ query: 'widget zebra', limit: 100 });
    assert.match(r.warnings.join(), /common words left out.*widget/);
    assert.equal(r.results.length, 3);
    for (const x of r.results) assert.match(x.memory.preview, /zebra/);
    const plain = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'widget zebra', limit: 100 });
    assert.equal(plain.results.length, 45); // every widget note (the zebra ones are widget notes too)
    assert.deepEqual(plain.warnings, []);
    await f.store.close();
  });

  test('one count per word: the relevance plan and both common-word filters share it', async () => {
    const f = await corpus();
    const counted: string[] = [];
    const get = f.store.get.bind(f.store);
    f.store.get = ((sql: string, params?: unknown[]) => {
      if (/^SELECT count\(\*\) AS n FROM \(SELECT docid FROM memories_(fts|exact) WHERE/.test(sql)) counted.push(String(params?.[0]));
      return get(sql, params as never);
    }) as typeof f.store.get;
    const search = f.searcher({
      embedder: undefined,
      vectors: undefined,
      settings: { commonTermShare: 0.5, commonTermMinRows: 10, queryCommonShare: 0.5, queryCommonMinRows: 10 },
    });
    const r = await search.search({ query: 'widget zebra gadget', limit: 100 });
    assert.match(r.warnings.join(), /common words left out.*widget/); // the leg's filter ran
    assert.ok(counted.includes('"widget"') && counted.includes('"zebra"') && counted.includes('"gadget"'), counted.join());
    assert.deepEqual(counted, [...new Set(counted)], 'no word counted twice');
    const before = counted.length;
    await search.search({ query: 'gadget widget zebra', limit: 100 });
    assert.equal(counted.length, before, 'a second search counts nothing again');
    await f.store.close();
  });
});
