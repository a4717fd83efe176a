/**
 * Vector feedback (Rocchio, src/core/search/feedback.ts): the best first-pass results move the
 * query vector, and the search runs again with it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rocchio } from '../../../src/core/search/feedback';
import { resolveSearchSettings, DEFAULT_SEARCH_SETTINGS } from '../../../src/core/search/settings';
import { TableEmbedder, searchFixture } from './fixture';

const close = (a: number, b: number, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);

describe('rocchio', () => {
  test('unit query + β × mean of the unit document vectors', () => {
    const q = Float32Array.from([2, 0, 0]);
    const out = rocchio(q, [Float32Array.from([0, 3, 0]), Float32Array.from([0, 0, 0.5])], 0.5);
    close(out[0]!, 1);
    close(out[1]!, 0.25);
    close(out[2]!, 0.25);
  });

  test('zero or mismatched document vectors are skipped; none left or β 0 → the unit query', () => {
    const q = Float32Array.from([0, 4, 3]);
    const only = rocchio(q, [new Float32Array(3), Float32Array.from([1, 1])], 1);
    assert.deepEqual(
      Array.from(only).map((x) => Math.round(x * 1e6) / 1e6),
      [0, 0.8, 0.6],
    );
    const off = rocchio(q, [Float32Array.from([1, 0, 0])], 0);
    assert.deepEqual(
      Array.from(off).map((x) => Math.round(x * 1e6) / 1e6),
      [0, 0.8, 0.6],
    );
    const one = rocchio(q, [Float32Array.from([1, 0, 0]), new Float32Array(3)], 1);
    close(one[0]!, 1, 1e-6); // the zero vector does not dilute the mean
  });
});

describe('hybrid search with vector feedback', () => {
  test('a memory near the best first-pass result (but far from the query) rises above a filler', async () => {
    // Query along x. `top` matches the words and is the best first-pass result; `near` shares no
    // word with the query and points where `top` points; `filler` is closer to the raw query.
    const table = new Map<string, number[]>([
      ['alpha beta', [1, 0, 0]],
      ['Alpha beta release notes.', [0.3, 0.95, 0]],
      ['Unrelated words one.', [0.2, 0.98, 0]],
      ['Other filler two.', [0.5, 0, 0.866]],
    ]);
    const f = await searchFixture(new TableEmbedder(3, table, [0, 0, 1]));
    try {
      const top = await f.add({ content: 'Alpha beta release notes.' });
      const near = await f.add({ content: 'Unrelated words one.' });
      const filler = await f.add({ content: 'Other filler two.' });
      // The relevance floor off: `near` and `filler` are far from the query on purpose.
      const base = { minCandidates: 3, candidateMultiplier: 1, relevanceFloor: false };
      const order = async (settings: Record<string, number>) =>
        (await f.searcher({ settings: { ...base, ...settings } }).search({ query: 'alpha beta', limit: 3 })).results.map(
          (x) => x.memory.id,
        );

      const without = await order({ feedbackDocs: 0 });
      assert.deepEqual(without, [top.id, filler.id, near.id]);
      const withFb = await order({ feedbackDocs: 1, feedbackWeight: 1 });
      assert.deepEqual(withFb, [top.id, near.id, filler.id]);
      // Weight 0 is the same as off.
      assert.deepEqual(await order({ feedbackDocs: 1, feedbackWeight: 0 }), without);

      // Vector-only ranking (keyword weight 0): no feedback, the first pass is too imprecise.
      const vecOnly = { keywordWeight: 0, vectorWeight: 1 };
      assert.deepEqual(await order({ ...vecOnly, feedbackDocs: 1, feedbackWeight: 1 }), await order({ ...vecOnly, feedbackDocs: 0 }));
      assert.deepEqual(await order({ ...vecOnly, feedbackDocs: 0 }), [filler.id, top.id, near.id]);

      // Full text only (no vectors): feedback has nothing to move, results unchanged.
      const ft = await f
        .searcher({ embedder: undefined, vectors: undefined, settings: { ...base, feedbackDocs: 3, feedbackWeight: 0.7 } })
        .search({ query: 'alpha beta', limit: 3 });
      assert.deepEqual(
        ft.results.map((x) => x.memory.id),
        [top.id],
      );
    } finally {
      await f.store.close();
    }
  });

  test('defaults are the measured ones; nonsense is refused', () => {
    // Off since the query text for the embedder was cleaned (LoCoMo RESULTS.md round 3).
    assert.equal(DEFAULT_SEARCH_SETTINGS.feedbackDocs, 0);
    assert.equal(DEFAULT_SEARCH_SETTINGS.feedbackWeight, 0.7);
    assert.throws(() => resolveSearchSettings({ feedbackDocs: -1 }), RangeError);
    assert.throws(() => resolveSearchSettings({ feedbackDocs: 1.5 }), RangeError);
    assert.throws(() => resolveSearchSettings({ feedbackWeight: Number.NaN }), RangeError);
  });
});
