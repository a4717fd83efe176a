import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { AccessTracker } from '../../../src/core/lifecycle/access';
import { ValidationError } from '../../../src/core/memory/errors';
import { FailingEmbedder, TableEmbedder, searchFixture } from './fixture';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { tmpDir } from '../../helpers/tmp';
import { defaultConfig } from '../../../src/core/config';
import { resolveSearchSettings, searchSettingsFromConfig } from '../../../src/core/search/settings';
import { lifecycleFromConfig } from '../../../src/core/lifecycle/settings';

const NOTES = [
  { content: 'Authentication uses JWT tokens issued by the auth server.', type: 'decision', tags: ['auth', 'security'] },
  { content: 'The user prefers dark mode in every editor window.', type: 'preference', tags: ['ui'] },
  { content: 'Mode switching: dark themes load after the light ones.', type: 'general', tags: ['ui'] },
  { content: 'The test runner is running the suites in parallel.', type: 'workflow', tags: ['tests'] },
  { content: 'Postgres connection pool size is 20 in production.', type: 'fact', tags: ['db'] },
  { content: 'Le café est servi à 9h, naïve façade near 東京.', type: 'general', tags: ['i18n'] },
  { content: 'The dev server listens on port 8080 behind the proxy.', type: 'fact', tags: ['dev'] },
];

async function seeded() {
  const f = await searchFixture();
  const mem = [];
  for (const n of NOTES) {
    mem.push(await f.add(n));
    f.clock.advance(60_000);
  }
  return { ...f, mem };
}

const HOSTILE = [
  '',
  ' ',
  '\t\n',
  '"',
  '""',
  '"""',
  "'",
  '"unbalanced',
  'a "b" "c',
  '(',
  ')',
  '(auth OR',
  'AND',
  'OR',
  'NOT',
  'NEAR',
  'auth NEAR/3 jwt',
  '-auth',
  '--',
  '*',
  '**',
  '*auth',
  'au*th',
  '^auth',
  ':',
  'title:auth',
  'content:"dark mode"',
  '{title content}:dark',
  'café naïve',
  '東京',
  'Привет мир',
  '🎉',
  '👨‍👩‍👧‍👦',
  '\u0000',
  '\u200b',
  "'; DROP TABLE memories; --",
  "1' OR '1'='1",
  'Robert"); DROP TABLE memories;--',
  '%',
  '_',
  '\\',
  'a'.repeat(20_000),
  '('.repeat(5000),
  'word '.repeat(3000),
  'docid:1',
  'memories_fts MATCH x',
  'rowid = 1 OR 1=1',
  'e\u0301te\u0301',
];

describe('hybrid search: full-text safety', () => {
  test('hostile queries never throw and never widen the query', async () => {
    const f = await seeded();
    const s = f.searcher();
    for (const q of HOSTILE) {
      const r = await s.search({ query: q });
      assert.ok(Array.isArray(r.results), JSON.stringify(q.slice(0, 40)));
      for (const x of r.results) assert.ok(x.finalScore >= 0 && x.finalScore <= 1 + 1e-9);
    }
    // An injection attempt is just words: the table is intact and counts match.
    assert.equal(f.svc.count(), NOTES.length);
    assert.deepEqual(f.store.integrityCheck(), []);
    await f.store.close();
  });

  test('a query with nothing searchable answers empty with a warning', async () => {
    const f = await seeded();
    for (const q of ['', '   ', '🎉', '"""', '***']) {
      const r = await f.searcher().search({ query: q });
      assert.equal(r.results.length, 0);
      assert.equal(r.warnings.length, 1, q);
    }
    await f.store.close();
  });

  test('prefix and phrase queries (full text only)', async () => {
    const f = await seeded();
    const s = f.searcher({ embedder: undefined, vectors: undefined });
    const prefix = await s.search({ query: 'authent*' });
    assert.deepEqual(
      prefix.results.map((r) => r.memory.id),
      [f.mem[0]!.id],
    );
    assert.equal(prefix.results[0]!.matchType, 'keyword');
    // Both mention dark and mode; only one has the adjacent phrase.
    const words = await s.search({ query: 'dark mode' });
    assert.deepEqual(new Set(words.results.map((r) => r.memory.id)), new Set([f.mem[1]!.id, f.mem[2]!.id]));
    const phrase = await s.search({ query: '"dark mode"' });
    assert.deepEqual(
      phrase.results.map((r) => r.memory.id),
      [f.mem[1]!.id],
    );
    // Porter stemming: "runs" finds "running".
    const stem = await s.search({ query: 'runs' });
    assert.deepEqual(
      stem.results.map((r) => r.memory.id),
      [f.mem[3]!.id],
    );
    // Unicode words.
    const cafe = await s.search({ query: 'café' });
    assert.deepEqual(
      cafe.results.map((r) => r.memory.id),
      [f.mem[5]!.id],
    );
    await f.store.close();
  });
});

describe('hybrid search: filters and visibility', () => {
  test('type, scope and tag filters apply to both legs', async () => {
    const f = await seeded();
    const g = await f.add({ content: 'Global note: dark mode is the default everywhere.', scope: 'global', tags: ['ui'] });
    const s = f.searcher();
    const byType = await s.search({ query: 'dark mode editor', types: ['preference'] });
    assert.ok(byType.results.length >= 1);
    for (const r of byType.results) assert.equal(r.memory.type, 'preference');
    const byTag = await s.search({ query: 'dark server proxy auth', tags: ['ui'] });
    assert.ok(byTag.results.length >= 1);
    for (const r of byTag.results) assert.ok(r.memory.tags.includes('ui'));
    const byScope = await s.search({ query: 'dark mode', scope: 'global' });
    assert.deepEqual(
      byScope.results.map((r) => r.memory.id),
      [g.id],
    );
    const none = await s.search({ query: 'dark mode', tags: ['ui', 'db'] });
    assert.equal(none.results.length, 0);
    await assert.rejects(s.search({ query: 'x', types: ['nonsense'] }), ValidationError);
    await assert.rejects(s.search({ query: 'x', scope: 'galaxy' as never }), ValidationError);
    await f.store.close();
  });

  test('tombstoned and expired memories are invisible even with their vectors still indexed', async () => {
    const f = await seeded();
    const gone = f.mem[0]!;
    f.svc.delete(gone.id);
    const shortLived = await f.add({ content: 'Authentication tokens rotate hourly on the auth server.', ttlSeconds: 60 });
    const s = f.searcher();
    let r = await s.search({ query: 'authentication auth server tokens' });
    assert.ok(!r.results.some((x) => x.memory.id === gone.id));
    assert.ok(r.results.some((x) => x.memory.id === shortLived.id));
    f.clock.advance(61_000);
    r = await s.search({ query: 'authentication auth server tokens' });
    assert.ok(!r.results.some((x) => x.memory.id === gone.id || x.memory.id === shortLived.id));
    assert.ok(f.index.has(gone.rid) && f.index.has(shortLived.rid));
    await f.store.close();
  });

  test('a selective filter still finds its few matches among many (two-pass ranking falls back)', async () => {
    const f = await searchFixture();
    const inputs = Array.from({ length: 320 }, (_, i) => ({
      content: `Canary rollout step ${i} for service ${i % 17} ${'canary '.repeat(1 + (i % 3))}`,
      tags: i % 100 === 7 ? ['rare'] : ['common'],
      ttlSeconds: null,
      allowNearDuplicate: true,
    }));
    const made = f.svc.createMany(inputs);
    assert.equal(made.filter((r) => r.status === 'created').length, 320);
    const s = f.searcher({ embedder: undefined, vectors: undefined });
    // 320 rows match; the first pass keeps the best 4 × 50 = 200, which need not hold the 4 rare ones.
    const r = await s.search({ query: 'canary', tags: ['rare'], limit: 10 });
    assert.equal(r.results.length, 4);
    for (const x of r.results) assert.deepEqual(x.memory.tags, ['rare']);
    const all = await s.search({ query: 'canary', limit: 100 });
    assert.equal(all.results.length, 100);
    await f.store.close();
  });

  test('other projects are not searched', async () => {
    const dir = tmpDir('am-search-proj-');
    const f = await searchFixture(undefined, dir);
    await f.add({ content: 'Shared words: kubernetes ingress controller.' });
    const other = f.searcher({ projectId: 'github.com/acme/other' });
    assert.equal((await other.search({ query: 'kubernetes ingress' })).results.length, 0);
    assert.equal((await f.searcher().search({ query: 'kubernetes ingress' })).results.length, 1);
    await f.store.close();
  });
});

describe('hybrid search: union, scores, ordering', () => {
  test('union: keyword-only, vector-only and both, each with both scores where they exist', async () => {
    // 3-d vectors: the query points along x.
    const table = new Map<string, number[]>([
      ['zebra crossing rules', [1, 0, 0]],
      ['Keyword alpha only here.', [0, 1, 0]],
      ['Semantic neighbour without shared words.', [0.95, 0.31, 0]],
      ['zebra crossing rules apply at alpha junction.', [0.9, 0, 0.43]],
      ['Unrelated filler sentence number one.', [0, 0, 1]],
    ]);
    const emb = new TableEmbedder(3, table, [0, 0, 1]);
    const f = await searchFixture(emb);
    const kw = await f.add({ content: 'Keyword alpha only here.' });
    const vec = await f.add({ content: 'Semantic neighbour without shared words.' });
    const both = await f.add({ content: 'zebra crossing rules apply at alpha junction.' });
    await f.add({ content: 'Unrelated filler sentence number one.' });
    // Feedback off: this pins union scoring against the query itself (feedback has its own test).
    const s = f.searcher({ settings: { minCandidates: 2, candidateMultiplier: 1, feedbackDocs: 0 } });
    const r = await s.search({ query: 'zebra crossing rules', limit: 2 });
    // limit 2 → candidate pools of 2: FTS finds `both` only; vectors find `both` and `vec`.
    const byId = new Map(r.results.map((x) => [x.memory.id, x]));
    assert.equal(byId.get(both.id)?.matchType, 'hybrid');
    assert.equal(byId.get(vec.id)?.matchType, 'vector');
    assert.equal(byId.get(vec.id)?.textScore, 0);
    // 'alpha': FTS finds `kw` and `both`; the vector top-2 is filler and `both`, so `kw` is
    // keyword-only, and its vector score is its exact cosine (0.3) computed for the union.
    table.set('alpha', [0, 0.3, Math.sqrt(1 - 0.09)]);
    const s2 = f.searcher({
      settings: {
        minCandidates: 2,
        candidateMultiplier: 1,
        normalization: 'saturate',
        vectorWeight: 0.01,
        keywordWeight: 0.99,
        feedbackDocs: 0,
      },
    });
    const r2 = await s2.search({ query: 'alpha', limit: 2 });
    const k = r2.results.find((x) => x.memory.id === kw.id)!;
    assert.ok(k, 'keyword-only memory found');
    assert.equal(k.matchType, 'keyword');
    assert.ok(Math.abs(k.vectorScore - 0.3) < 1e-6, String(k.vectorScore));
    assert.ok(k.textScore > 0);
    assert.equal(r2.results.find((x) => x.memory.id === both.id)?.matchType, 'hybrid');
    assert.ok(r2.legs.keyword && r2.legs.vector);
    await f.store.close();
  });

  test('min-max fusion: best of each leg scores 1 on that leg; final = weighted sum', async () => {
    const f = await seeded();
    // The min-max ranking kept for measurements (settings.ranking 'hybrid'); the default ranks by relevance.
    const s = f.searcher({ settings: { vectorWeight: 0.6, keywordWeight: 0.4, ranking: 'hybrid' } });
    const r = await s.search({ query: 'dark mode editor theme' });
    assert.ok(r.results.length >= 2);
    assert.equal(Math.max(...r.results.map((x) => x.textScore)), 1);
    assert.equal(Math.max(...r.results.map((x) => x.vectorScore)), 1);
    for (const x of r.results) {
      assert.ok(Math.abs(x.finalScore - (0.6 * x.vectorScore + 0.4 * x.textScore)) < 1e-9);
      assert.equal(x.graphBoost, 0);
    }
    for (let i = 1; i < r.results.length; i++) assert.ok(r.results[i - 1]!.finalScore >= r.results[i]!.finalScore);
    await f.store.close();
  });

  test('min_score drops results below it', async () => {
    const f = await seeded();
    const s = f.searcher();
    const all = await s.search({ query: 'dark mode server auth' });
    assert.ok(all.results.length >= 3);
    const cut = all.results[1]!.finalScore;
    const some = await s.search({ query: 'dark mode server auth', minScore: cut });
    assert.ok(some.results.length >= 1 && some.results.length < all.results.length);
    for (const x of some.results) assert.ok(x.finalScore >= cut);
    await assert.rejects(s.search({ query: 'x', minScore: -1 }), ValidationError);
    await assert.rejects(s.search({ query: 'x', minScore: Number.NaN }), ValidationError);
    await f.store.close();
  });

  test("a request's minRelevance replaces the floor: related memories below it are listed; nonsense is refused", async () => {
    const f = await seeded();
    const s = f.searcher();
    // One common word of a longer question: below the floor, yet related (docs/recall.md "The floor").
    const q = 'which editor mode do the users of the library like for their documents';
    const floored = await s.search({ query: q });
    const related = await s.search({ query: q, minRelevance: 1e-6 });
    assert.ok(related.results.length > floored.results.length, `${related.results.length} > ${floored.results.length}`);
    for (const x of related.results) assert.ok(x.relevance >= 1e-6);
    assert.ok(related.results.some((x) => x.relevance < 0.3));
    await assert.rejects(s.search({ query: q, minRelevance: 1.5 }), /minRelevance: must be a number from 0 to 1, got 1.5/);
    await assert.rejects(s.search({ query: q, minRelevance: Number.NaN }), ValidationError);
    await f.store.close();
  });

  test('equal scores: the newer memory first', async () => {
    const f = await searchFixture();
    const older = await f.add({ content: 'gamma widget one' });
    f.clock.advance(1000);
    const newer = await f.add({ content: 'gamma widget two' });
    f.clock.advance(1000);
    const s = f.searcher({ embedder: undefined, vectors: undefined });
    const r = await s.search({ query: 'gamma' });
    assert.equal(r.results[0]!.finalScore, r.results[1]!.finalScore);
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      [newer.id, older.id],
    );
    await f.store.close();
  });

  test('limits: default 20, max 100 with a clear error', async () => {
    const f = await searchFixture();
    for (let i = 0; i < 25; i++) await f.add({ content: `Deploy checklist item ${i}: verify the canary build ${'x'.repeat(i)}` });
    const s = f.searcher();
    assert.equal((await s.search({ query: 'canary deploy' })).results.length, 20);
    assert.equal((await s.search({ query: 'canary deploy', limit: 5 })).results.length, 5);
    assert.equal((await s.search({ query: 'canary deploy', limit: 100 })).results.length, 25);
    await assert.rejects(s.search({ query: 'canary', limit: 101 }), /at most 100/);
    await assert.rejects(s.search({ query: 'canary', limit: 0 }), ValidationError);
    await assert.rejects(s.search({ query: 'canary', limit: 2.5 }), ValidationError);
    await assert.rejects(s.search({ query: 42 as unknown as string }), ValidationError);
    await f.store.close();
  });
});

describe('hybrid search: degradation, graph boost, rerank', () => {
  test('embedding failure → full text only, with a warning', async () => {
    const f = await seeded();
    const s = f.searcher({ embedder: new FailingEmbedder({ dimension: 256 }) });
    const r = await s.search({ query: 'dark mode' });
    assert.equal(r.legs.vector, false);
    assert.ok(r.results.length >= 1);
    assert.match(r.warnings.join('\n'), /could not be embedded.*Ollama is not running/);
    for (const x of r.results) {
      assert.equal(x.matchType, 'keyword');
      assert.equal(x.vectorScore, 0);
      assert.equal(x.finalScore, x.textScore);
    }
    await f.store.close();
  });

  for (const [name, value, reason] of [
    ['all-zero', 0, /unusable vector: it is all zeros/],
    ['NaN', Number.NaN, /unusable vector: it holds NaN/],
  ] as const) {
    test(`an ${name} query vector runs keyword-only with a warning instead of throwing`, async () => {
      const f = await seeded();
      const broken = new (class extends HashEmbedder {
        override async embed(texts: string[]): Promise<Float32Array[]> {
          return texts.map(() => new Float32Array(this.dimension).fill(value));
        }
      })({ dimension: 256 });
      assert.equal(broken.space, f.embedder.space);
      const r = await f.searcher({ embedder: broken }).search({ query: 'dark mode' });
      assert.equal(r.legs.vector, false);
      assert.equal(r.legs.keyword, true);
      assert.ok(r.results.length >= 1);
      assert.match(r.warnings.join('\n'), reason);
      for (const x of r.results) assert.equal(x.matchType, 'keyword');
      await f.store.close();
    });
  }

  test('embedder of another space is not used against the index', async () => {
    const f = await seeded();
    const s = f.searcher({ embedder: new TableEmbedder(256, new Map(), new Array(256).fill(1)) });
    const r = await s.search({ query: 'dark mode' });
    assert.equal(r.legs.vector, false);
    assert.match(r.warnings[0]!, /does not match the vector index/);
    await f.store.close();
  });

  test('graph boost adds graphBoostWeight to linked memories and reports it', async () => {
    const f = await seeded();
    const target = f.mem[4]!; // the db note: weak for this query
    const calls: Array<[string, number]> = [];
    const s = f.searcher({
      settings: { ranking: 'hybrid' },
      graphBoost: (q, deadline) => {
        calls.push([q, deadline]);
        return { memoryIds: new Set([target.id]), timedOut: false };
      },
    });
    const plain = await s.search({ query: 'dark mode pool' });
    assert.equal(calls.length, 0, 'not asked without graphBoost: true');
    const boosted = await s.search({ query: 'dark mode pool', graphBoost: true });
    assert.equal(calls.length, 1);
    assert.ok(calls[0]![1] > Date.now() - 1000, 'an absolute deadline');
    const before = plain.results.find((x) => x.memory.id === target.id)!;
    const after = boosted.results.find((x) => x.memory.id === target.id)!;
    assert.equal(after.graphBoost, 0.15);
    assert.ok(Math.abs(after.finalScore - (before.finalScore + 0.15)) < 1e-9);
    for (const x of boosted.results) if (x.memory.id !== target.id) assert.equal(x.graphBoost, 0);
    await f.store.close();
  });

  test('graph boost timeout and failure are warnings, never errors', async () => {
    const f = await seeded();
    const timed = f.searcher({ graphBoost: () => ({ memoryIds: new Set([f.mem[1]!.id]), timedOut: true }) });
    const r1 = await timed.search({ query: 'dark mode', graphBoost: true });
    assert.match(r1.warnings.join(), /timed out/);
    assert.equal(r1.results.find((x) => x.memory.id === f.mem[1]!.id)!.graphBoost, 0.15);
    const broken = f.searcher({
      graphBoost: () => {
        throw new Error('graph tables missing');
      },
    });
    const r2 = await broken.search({ query: 'dark mode', graphBoost: true });
    assert.match(r2.warnings.join(), /graph tables missing/);
    assert.ok(r2.results.length >= 1 && r2.results.every((x) => x.graphBoost === 0));
    await f.store.close();
  });

  test('reranker reorders the head; failure keeps the original order with a warning', async () => {
    const f = await seeded();
    const base = await f.searcher().search({ query: 'dark mode server auth editor' });
    const order = base.results.map((x) => x.memory.id);
    assert.ok(order.length >= 3);
    const reversed = f.searcher({ reranker: { provider: async (_q, c) => [...c].reverse(), config: { topN: 2 } } });
    const r = await reversed.search({ query: 'dark mode server auth editor' });
    // topN 2: the head of two is reversed, the tail appended untouched.
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      [order[1], order[0], ...order.slice(2)],
    );
    const failing = f.searcher({
      reranker: {
        provider: async () => {
          throw new Error('model gone');
        },
      },
    });
    const r2 = await failing.search({ query: 'dark mode server auth editor' });
    assert.deepEqual(
      r2.results.map((x) => x.memory.id),
      order,
    );
    assert.match(r2.warnings.join(), /model gone/);
    const skipped = await reversed.search({ query: 'dark mode server auth editor', noRerank: true });
    assert.deepEqual(
      skipped.results.map((x) => x.memory.id),
      order,
    );
    await f.store.close();
  });
});

describe('hybrid search: access bookkeeping', () => {
  test('results are counted after the response, durably', async () => {
    const dir = tmpDir('am-search-access-');
    const f = await searchFixture(undefined, dir);
    const a = await f.add({ content: 'Feature flags live in the flags service.' });
    const b = await f.add({ content: 'Nothing in common with the query at all.' });
    const tracker = new AccessTracker(f.store, { now: f.clock.now });
    const s = f.searcher({ access: tracker, embedder: undefined, vectors: undefined });
    const r = await s.search({ query: 'feature flags' });
    assert.deepEqual(
      r.results.map((x) => x.memory.id),
      [a.id],
    );
    // Deferred: nothing written yet when the response is in hand.
    assert.equal(f.svc.get(a.id)!.accessCount, 0);
    assert.equal(tracker.pending, 1);
    tracker.flush(); // the engine's scheduler does this (src/engine/worker/scheduler.ts)
    assert.equal(tracker.pending, 0);
    assert.equal(f.svc.get(a.id)!.accessCount, 1);
    f.clock.advance(3600_000); // one access per memory per hour counts
    await s.search({ query: 'feature flags' });
    tracker.flush();
    assert.equal(f.svc.get(b.id)!.accessCount, 0);
    await f.store.close({ snapshot: false }); // reopen replays the op log
    const store = await Store.open({ dir });
    const row = store.get<{ access_count: number; last_accessed_at: string }>(
      'SELECT access_count, last_accessed_at FROM memories WHERE id = ?',
      [a.id],
    )!;
    assert.equal(row.access_count, 2);
    assert.equal(row.last_accessed_at, f.clock.now().toISOString());
    await store.close();
  });
});

describe('search settings', () => {
  test('agent.yaml values map onto search and lifecycle settings; nonsense is refused', () => {
    const cfg = defaultConfig();
    const s = resolveSearchSettings(searchSettingsFromConfig(cfg));
    assert.equal(s.vectorWeight, cfg.search.vector_weight);
    assert.equal(s.keywordWeight, cfg.search.keyword_weight);
    assert.equal(s.maxLimit, cfg.search.max_limit);
    assert.equal(s.graphBoostWeight, cfg.memory.pipelineV2.graphBoostWeight);
    const l = lifecycleFromConfig(cfg.memory);
    assert.equal(l.ttlExtendFactor, cfg.memory.ttl_extend_factor);
    assert.equal(l.promoteAccessCount, cfg.memory.promote_access_count);
    assert.throws(() => resolveSearchSettings({ vectorWeight: 2 }), /vectorWeight/);
    assert.throws(() => resolveSearchSettings({ vectorWeight: 0, keywordWeight: 0 }), /above 0/);
    assert.throws(() => resolveSearchSettings({ defaultLimit: 200 }), /maxLimit/);
    assert.throws(() => resolveSearchSettings({ normalization: 'rrf' as never }), /normalization/);
  });

  test('search.min_score from settings applies when the request gives none', async () => {
    const f = await seeded();
    const all = await f.searcher().search({ query: 'dark mode server auth' });
    const cut = all.results[1]!.finalScore;
    const s = f.searcher({ settings: { minScore: cut } });
    const r = await s.search({ query: 'dark mode server auth' });
    assert.ok(r.results.length >= 1 && r.results.length < all.results.length);
    for (const x of r.results) assert.ok(x.finalScore >= cut);
    await f.store.close();
  });
});
