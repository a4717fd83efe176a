/**
 * The engine's search over both stores (src/engine/worker/services/search.ts): one ranking by the
 * absolute relevance, so a lone global memory no longer outranks the project memory that
 * answers the query, and a nonsense query finds nothing in either store.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HashEmbedder } from '../../../../src/core/embed/hashEmbedder';
import { TurnBatch } from '../../../../src/core/embed/turnBatch';
import type { EmbedKind } from '../../../../src/core/embed/types';
import { defaultConfig } from '../../../../src/core/config';
import { SearchService, type SearchableStore } from '../../../../src/engine/worker/services/search';
import { searchFixture } from '../../../core/search/fixture';
import { plural } from '../../../../src/core/text/plural';

async function store(name: 'project' | 'global', contents: string[]) {
  const f = await searchFixture(new HashEmbedder({ dimension: 512 }));
  for (const content of contents) await f.add({ content });
  const hybrid = f.searcher();
  const view: SearchableStore = { name, search: (req) => hybrid.search(req) };
  return { f, view };
}

async function twoStores() {
  const project = await store('project', [
    'We use pnpm as the package manager in this repository.',
    'The flaky checkout test was fixed by waiting for the dev server.',
    'Release notes are written in CHANGELOG.md before tagging.',
  ]);
  const global = await store('global', ['My colleague prefers small pull requests with one change each.']);
  const warnings: string[] = [];
  const service = new SearchService({
    config: defaultConfig(),
    stores: { forScope: (scope) => [project.view, global.view].filter((s) => scope === undefined || s.name === scope) },
    warn: (m) => warnings.push(m),
  });
  const close = async () => {
    await project.f.store.close();
    await global.f.store.close();
  };
  return { service, close, warnings };
}

describe('search across both stores', () => {
  test('one relevance ranking: the lone global memory does not come first, hits carry relevance and matched words', async () => {
    const s = await twoStores();
    try {
      const r = await s.service.search({ query: 'which package manager do we use', recordAccess: false });
      assert.ok(r.hits.length >= 1);
      assert.equal(r.hits[0]!.store, 'project');
      assert.match(r.hits[0]!.content, /pnpm/);
      assert.deepEqual(r.hits[0]!.matchedTerms, ['package', 'manager', 'use']);
      assert.ok(r.hits[0]!.relevance > 0.99);
      for (const h of r.hits) assert.ok(h.relevance > 0 && h.relevance <= 1, `relevance in (0, 1]: ${h.relevance}`);
      const global = r.hits.find((h) => h.store === 'global');
      if (global) assert.ok(global.relevance < r.hits[0]!.relevance, 'ranked below the answer, on the same scale');
    } finally {
      await s.close();
    }
  });

  test('a global memory that matches ranks by its own relevance among the project hits', async () => {
    const s = await twoStores();
    try {
      const r = await s.service.search({ query: 'colleague pull requests', recordAccess: false });
      assert.equal(r.hits[0]!.store, 'global');
      assert.deepEqual(r.hits[0]!.matchedTerms, ['colleague', 'pull', 'requests']);
    } finally {
      await s.close();
    }
  });

  test('a nonsense query finds nothing in either store', async () => {
    const s = await twoStores();
    try {
      const r = await s.service.search({ query: 'xyzzy frobnicate', recordAccess: false });
      assert.deepEqual(r.hits, []);
      assert.deepEqual(r.legsUsed.sort(), ['keyword', 'vector']);
    } finally {
      await s.close();
    }
  });
});

/** A hash embedder that embeds the texts asked in one turn together (as the built-in model does: turnBatch.ts). */
class TurnBatchedEmbedder extends HashEmbedder {
  readonly calls: string[][] = [];
  private readonly turns = new TurnBatch((texts) => {
    this.calls.push(texts);
    return super.embed(texts, 'query');
  });
  override embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    return kind === 'query' ? this.turns.add(texts) : super.embed(texts, kind);
  }
}

describe('both stores embed the query together', () => {
  test("a search over both stores asks for the stores' query views in one model call", async () => {
    const embedder = new TurnBatchedEmbedder({ dimension: 512 });
    const project = await searchFixture(embedder);
    const global = await searchFixture(embedder);
    try {
      await project.add({ content: 'We use pnpm as the package manager in this repository.' });
      await global.add({ content: 'My colleague prefers small pull requests with one change each.' });
      const views: SearchableStore[] = [
        { name: 'project', search: (req) => project.searcher().search(req) },
        { name: 'global', search: (req) => global.searcher().search(req) },
      ];
      const service = new SearchService({ config: defaultConfig(), stores: { forScope: () => views }, warn: () => {} });
      const r = await service.search({ query: 'which package manager do we use', recordAccess: false });
      assert.equal(r.hits[0]!.store, 'project');
      // Both stores ask for the same two views; each text is embedded once.
      assert.deepEqual(embedder.calls, [['package manager use', 'which package manager do we use']]);
    } finally {
      await project.store.close();
      await global.store.close();
    }
  });
});

/** Counts the statements a store runs (its reads: get and all), and keeps their SQL. */
function countStatements(store: { get: (...a: never[]) => unknown; all: (...a: never[]) => unknown }): { sql: string[] } {
  const seen = { sql: [] as string[] };
  for (const m of ['get', 'all'] as const) {
    const real = store[m].bind(store) as (sql: string, params?: unknown[]) => unknown;
    (store as Record<string, unknown>)[m] = (sql: string, params?: unknown[]) => {
      seen.sql.push(sql);
      return real(sql, params);
    };
  }
  return seen;
}

function serviceOver(view: SearchableStore) {
  return new SearchService({ config: defaultConfig(), stores: { forScope: () => [view] }, warn: () => {} });
}

describe('search reads each hit once', () => {
  test('hits carry the whole content and row number from the search itself: no read per hit, the same hits as reading each', async () => {
    const f = await searchFixture(new HashEmbedder({ dimension: 512 }));
    for (let i = 0; i < 40; i++)
      await f.add({
        content: `Deploy note ${i}: the staging database ${'is migrated before the release '.repeat(i % 3 ? 1 : 12)}(step ${i}).`,
      });
    const hybrid = f.searcher();
    const accessed: number[] = [];
    const view: SearchableStore = {
      name: 'project',
      search: (req) => hybrid.search(req),
      access: { record: (rids) => accessed.push(...rids) },
    };
    const service = serviceOver(view);
    await service.search({ query: 'staging database release', limit: 5 }); // fills the store's term statistics cache
    const statements = countStatements(f.store);
    const few = await service.search({ query: 'staging database release', limit: 5, recordAccess: true });
    const fewCount = statements.sql.length;
    statements.sql.length = 0;
    const many = await service.search({ query: 'staging database release', limit: 30, recordAccess: true });
    assert.equal(few.hits.length, 5);
    assert.equal(many.hits.length, 30);
    // One statement reads the results' rows whatever their number: 25 more hits, no more statements.
    assert.equal(statements.sql.length, fewCount, statements.sql.join('\n'));
    assert.ok(!statements.sql.some((s) => /SELECT \* FROM memories WHERE id = \?/.test(s)), 'no memory is read again by id');
    // What the per-hit read gave before: the whole content, and the row number accesses are recorded by.
    const rids: number[] = [];
    for (const h of many.hits) {
      const rec = f.svc.get(h.memory.id)!;
      assert.equal(h.content, rec.content);
      rids.push(rec.rid);
    }
    assert.ok(
      many.hits.some((h) => h.content.length > h.memory.preview.length),
      'long contents come whole, not as the preview',
    );
    assert.deepEqual(accessed.slice(5), rids);
    await f.store.close();
  });
});

describe('a created-at range is part of the query', () => {
  test('a date-limited search finds `limit` hits in the range when more than max_limit better matches lie outside it', async () => {
    const f = await searchFixture(new HashEmbedder({ dimension: 512 }));
    f.clock.advance(-400 * 86_400_000); // 2025
    for (let i = 0; i < 120; i++) await f.add({ content: `Staging database port ${5400 + i} is used by the nightly job ${i}.` });
    f.clock.advance(400 * 86_400_000); // 2026-03-01
    const recent: string[] = [];
    for (let i = 0; i < 8; i++) recent.push((await f.add({ content: `The database port of worker ${i} moved to ${6400 + i}.` })).id);
    const hybrid = f.searcher();
    const service = serviceOver({ name: 'project', search: (req) => hybrid.search(req) });
    const query = 'staging database port';
    const max = defaultConfig().search.max_limit;
    const unfiltered = await service.search({ query, limit: max, recordAccess: false });
    assert.equal(unfiltered.hits.length, max);
    assert.ok(!unfiltered.hits.some((h) => recent.includes(h.memory.id)), `the ${plural(8, 'recent memory')} rank below the first ${max}`);
    const r = await service.search({ query, limit: 5, createdAfter: '2026-01-01', recordAccess: false });
    assert.equal(r.hits.length, 5);
    for (const h of r.hits) assert.ok(recent.includes(h.memory.id) && h.memory.createdAt >= '2026-01-01', h.memory.createdAt);
    const before = await service.search({ query, limit: 5, createdBefore: '2026-01-01', recordAccess: false });
    assert.equal(before.hits.length, 5);
    for (const h of before.hits) assert.ok(!recent.includes(h.memory.id));
    await f.store.close();
  });
});
