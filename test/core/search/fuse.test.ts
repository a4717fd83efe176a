import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyDateBoost,
  clampCosine,
  compareRanked,
  compareScored,
  effectiveWeights,
  fuse,
  inverseBm25,
  minMax,
  saturateBm25,
  type Candidate,
  type FuseWeights,
  type Fused,
} from '../../../src/core/search/fuse';
import { inDateWindows, type DateWindow } from '../../../src/core/search/queryDates';
import type { MatchType, Normalization } from '../../../src/core/search/types';
import { DEFAULT_RERANK_CONFIG, noopReranker, rerank, type RerankCandidate } from '../../../src/core/search/rerank';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

describe('normalization math', () => {
  test('min-max: [min,max] → [0,1], undefined kept, all-equal → 1', () => {
    assert.deepEqual(minMax([2, 4, undefined, 3]), [0, 1, undefined, 0.5]);
    assert.deepEqual(minMax([5, 5]), [1, 1]);
    assert.deepEqual(minMax([undefined]), [undefined]);
    assert.deepEqual(minMax([]), []);
    assert.deepEqual(minMax([-1, 1]), [0, 1]);
  });

  test('the inverse map is 1/(1+|s|) (decreasing), saturate is |s|/(1+|s|) (increasing)', () => {
    close(inverseBm25(0), 1);
    close(inverseBm25(3), 0.25);
    close(inverseBm25(-3), 0.25);
    close(saturateBm25(3), 0.75);
    close(saturateBm25(-1), 0.5);
    assert.ok(inverseBm25(5) < inverseBm25(1));
    assert.ok(saturateBm25(5) > saturateBm25(1));
    close(clampCosine(-0.3), 0);
    close(clampCosine(1.2), 1);
    close(clampCosine(0.42), 0.42);
  });

  test('weights: rescaled to the legs that ran', () => {
    assert.deepEqual(effectiveWeights({ vector: 0.7, keyword: 0.3 }, { vector: true, keyword: true }), { vector: 0.7, keyword: 0.3 });
    assert.deepEqual(effectiveWeights({ vector: 0.7, keyword: 0.3 }, { vector: false, keyword: true }), { vector: 0, keyword: 1 });
    assert.deepEqual(effectiveWeights({ vector: 0.7, keyword: 0.3 }, { vector: true, keyword: false }), { vector: 1, keyword: 0 });
    const w = effectiveWeights({ vector: 1, keyword: 1 }, { vector: true, keyword: true });
    close(w.vector, 0.5);
  });

  const cands: Candidate[] = [
    { rid: 1, id: 'a', createdAt: '2026-01-01', bm25: 8, similarity: 0.2, keywordHit: true, vectorHit: false },
    { rid: 2, id: 'b', createdAt: '2026-01-02', bm25: 2, similarity: 0.6, keywordHit: true, vectorHit: true },
    { rid: 3, id: 'c', createdAt: '2026-01-03', similarity: 0.8, keywordHit: false, vectorHit: true },
    { rid: 4, id: 'd', createdAt: '2026-01-04', bm25: 4, keywordHit: true, vectorHit: false },
  ];

  test('fuse min-max: numbers by hand, match types', () => {
    const f = fuse(cands, { vector: 0.7, keyword: 0.3 }, 'minmax', { vector: true, keyword: true });
    // text: 8→1, 2→0, 4→1/3, none→0. vector: 0.2→0, 0.6→2/3, 0.8→1, none→0.
    close(f[0]!.textScore, 1);
    close(f[0]!.vectorScore, 0);
    close(f[0]!.hybridScore, 0.3);
    close(f[1]!.vectorScore, 2 / 3);
    close(f[1]!.hybridScore, 0.7 * (2 / 3));
    close(f[2]!.hybridScore, 0.7);
    close(f[3]!.textScore, 1 / 3);
    close(f[3]!.hybridScore, 0.1);
    assert.deepEqual(
      f.map((x) => x.matchType),
      ['keyword', 'hybrid', 'vector', 'keyword'],
    );
  });

  test('fuse inverse/saturate use absolute maps; a leg that did not run scores 0 and gives its weight away', () => {
    const inv = fuse(cands, { vector: 0.5, keyword: 0.5 }, 'inverse', { vector: true, keyword: true });
    close(inv[0]!.textScore, 1 / 9);
    close(inv[0]!.vectorScore, 0.2);
    const sat = fuse(cands, { vector: 0.5, keyword: 0.5 }, 'saturate', { vector: true, keyword: true });
    close(sat[0]!.textScore, 8 / 9);
    close(sat[0]!.hybridScore, 0.5 * (8 / 9) + 0.5 * 0.2);
    const textOnly = fuse(cands, { vector: 0.7, keyword: 0.3 }, 'minmax', { vector: false, keyword: true });
    for (const x of textOnly) {
      assert.equal(x.vectorScore, 0);
      close(x.hybridScore, x.textScore);
    }
  });

  test('ranking: score, then newer, then higher rid', () => {
    const items = [
      { finalScore: 0.5, createdAt: '2026-01-01', rid: 1 },
      { finalScore: 0.9, createdAt: '2026-01-01', rid: 2 },
      { finalScore: 0.5, createdAt: '2026-02-01', rid: 3 },
      { finalScore: 0.5, createdAt: '2026-02-01', rid: 4 },
    ];
    assert.deepEqual(
      items.sort(compareRanked).map((x) => x.rid),
      [2, 4, 3, 1],
    );
  });
});

describe('fuse without object spreads: the same values as the spread-based code it replaced', () => {
  // The code before (spreads per candidate), kept here as the reference.
  function fuseBefore(
    cands: readonly Candidate[],
    weights: FuseWeights,
    mode: Normalization,
    legs: { keyword: boolean; vector: boolean },
  ): Fused[] {
    const w = effectiveWeights(weights, legs);
    const textVals = cands.map((c) => (c.bm25 !== undefined && c.bm25 > 0 ? c.bm25 : undefined));
    const text =
      mode === 'minmax'
        ? minMax(textVals)
        : textVals.map((v) => (v === undefined ? undefined : (mode === 'inverse' ? inverseBm25 : saturateBm25)(v)));
    const vec =
      mode === 'minmax'
        ? minMax(cands.map((c) => c.similarity))
        : cands.map((c) => (c.similarity === undefined ? undefined : clampCosine(c.similarity)));
    return cands.map((c, i) => {
      const textScore = text[i] ?? 0;
      const vectorScore = legs.vector ? (vec[i] ?? 0) : 0;
      const matchType: MatchType = c.keywordHit && c.vectorHit ? 'hybrid' : c.keywordHit ? 'keyword' : 'vector';
      return { ...c, textScore, vectorScore, hybridScore: w.vector * vectorScore + w.keyword * textScore, dateBoost: 0, matchType };
    });
  }
  const dateBefore = (fused: Fused[], windows: readonly DateWindow[], weight: number, slackMs: number): Fused[] =>
    windows.length === 0 || !(weight > 0)
      ? fused
      : fused.map((c) =>
          inDateWindows(c.createdAt, windows, slackMs) ? { ...c, hybridScore: c.hybridScore + weight, dateBoost: weight } : c,
        );
  // Fields as the search reads them (an absent field and an undefined one read the same).
  const fields = (f: Fused) => [
    f.rid,
    f.id,
    f.createdAt,
    f.bm25,
    f.similarity,
    f.keywordHit,
    f.vectorHit,
    f.textScore,
    f.vectorScore,
    f.hybridScore,
    f.dateBoost,
    f.matchType,
  ];

  test('randomized candidates, every normalization, leg set and a date boost: identical fields, bit for bit', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const day = Date.UTC(2026, 0, 10);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(rnd() * 130);
      const cands: Candidate[] = Array.from({ length: n }, (_, i) => {
        const kw = rnd() < 0.6;
        const c: Candidate = {
          rid: i + 1,
          id: `m${i}`,
          createdAt: new Date(day + Math.floor(rnd() * 20) * 86_400_000).toISOString(),
          keywordHit: kw,
          vectorHit: !kw || rnd() < 0.3,
        };
        if (kw || rnd() < 0.5) c.bm25 = rnd() < 0.05 ? 0 : rnd() * 12;
        if (!kw || rnd() < 0.8) c.similarity = rnd() * 2 - 1;
        return c;
      });
      const mode = (['minmax', 'inverse', 'saturate'] as const)[round % 3]!;
      const legs = [
        { keyword: true, vector: true },
        { keyword: true, vector: false },
        { keyword: false, vector: true },
      ][Math.floor(round / 3) % 3]!;
      const w = { vector: rnd(), keyword: rnd() };
      const windows = round % 2 ? [{ start: day + 5 * 86_400_000, end: day + 8 * 86_400_000 }] : [];
      const got = applyDateBoost(fuse(cands, w, mode, legs), windows, 0.2, 86_400_000);
      const want = dateBefore(fuseBefore(cands, w, mode, legs), windows, 0.2, 86_400_000);
      assert.equal(got.length, want.length);
      for (let i = 0; i < got.length; i++) {
        const a = fields(got[i]!);
        const b = fields(want[i]!);
        for (let j = 0; j < a.length; j++)
          assert.ok(Object.is(a[j], b[j]), `round ${round}, candidate ${i}, field ${j}: ${String(a[j])} vs ${String(b[j])}`);
      }
      // compareScored on hybridScore orders like compareRanked on a copy with finalScore = hybridScore.
      const byScored = [...got].sort((a, b) => compareScored(a.hybridScore, a, b.hybridScore, b)).map((x) => x.rid);
      const byRanked = [...got]
        .sort((a, b) => compareRanked({ ...a, finalScore: a.hybridScore }, { ...b, finalScore: b.hybridScore }))
        .map((x) => x.rid);
      assert.deepEqual(byScored, byRanked);
    }
  });
});

describe('rerank (optional reranking)', () => {
  const list = (n: number): RerankCandidate[] =>
    Array.from({ length: n }, (_, i) => ({ id: `m${i}`, content: `text ${i}`, score: 1 - i / 100 }));
  const ids = (xs: RerankCandidate[]) => xs.map((x) => x.id);

  test('reorders the head of topN and appends the tail untouched', async () => {
    const seen: number[] = [];
    const out = await rerank(
      'q',
      list(6),
      async (_q, c) => {
        seen.push(c.length);
        return [...c].reverse();
      },
      { topN: 3, timeoutMs: 1000 },
    );
    assert.equal(out.status, 'reranked');
    assert.deepEqual(seen, [3]);
    assert.deepEqual(ids(out.items), ['m2', 'm1', 'm0', 'm3', 'm4', 'm5']);
  });

  test('noop keeps the order; default config is topN 20, 2000 ms', async () => {
    assert.deepEqual(DEFAULT_RERANK_CONFIG, { topN: 20, timeoutMs: 2000 });
    const out = await rerank('q', list(25), noopReranker, DEFAULT_RERANK_CONFIG);
    assert.deepEqual(ids(out.items), ids(list(25)));
  });

  test('timeout → original order (Promise.race), and a late answer changes nothing', async () => {
    let late: (() => void) | undefined;
    const original = list(4);
    const out = await rerank(
      'q',
      original,
      () =>
        new Promise((resolve) => {
          late = () => resolve([...original].reverse());
        }),
      { topN: 4, timeoutMs: 30 },
    );
    assert.equal(out.status, 'timeout');
    assert.deepEqual(ids(out.items), ['m0', 'm1', 'm2', 'm3']);
    late!();
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(ids(out.items), ['m0', 'm1', 'm2', 'm3']);
  });

  test('throwing, rejecting or garbage providers → original order', async () => {
    const orig = ids(list(5));
    const throws = await rerank(
      'q',
      list(5),
      () => {
        throw new Error('boom');
      },
      { topN: 5, timeoutMs: 1000 },
    );
    assert.equal(throws.status, 'failed');
    assert.match(throws.error!, /boom/);
    assert.deepEqual(ids(throws.items), orig);
    const rejects = await rerank(
      'q',
      list(5),
      async () => {
        throw new Error('nope');
      },
      { topN: 5, timeoutMs: 1000 },
    );
    assert.deepEqual(ids(rejects.items), orig);
    const garbage = await rerank('q', list(5), async () => 'x' as never, { topN: 5, timeoutMs: 1000 });
    assert.equal(garbage.status, 'failed');
    assert.deepEqual(ids(garbage.items), orig);
  });

  test('unknown or repeated ids are ignored; omitted head items follow in their order', async () => {
    const out = await rerank(
      'q',
      list(5),
      async () => [
        { id: 'm3', content: '', score: 0 },
        { id: 'zz', content: '', score: 0 },
        { id: 'm3', content: '', score: 0 },
        { id: 'm1', content: '', score: 0 },
      ],
      { topN: 4, timeoutMs: 1000 },
    );
    assert.deepEqual(ids(out.items), ['m3', 'm1', 'm0', 'm2', 'm4']);
  });
});
