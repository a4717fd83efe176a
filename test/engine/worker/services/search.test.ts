/**
 * The engine's search over both stores (src/engine/worker/services/search.ts): one ranking by the
 * absolute relevance, so a lone global memory no longer outranks the project memory that
 * answers the query, and a nonsense query finds nothing in either store.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HashEmbedder } from '../../../../src/core/embed/hashEmbedder';
import { defaultConfig } from '../../../../src/core/config';
import { SearchService, type SearchableStore } from '../../../../src/engine/worker/services/search';
import { searchFixture } from '../../../core/search/fixture';

async function store(name: 'project' | 'global', contents: string[]) {
  const f = await searchFixture(new HashEmbedder({ dimension: 512 }));
  for (const content of contents) await f.add({ content });
  const hybrid = f.searcher();
  const view: SearchableStore = { name, search: (req) => hybrid.search(req), memory: f.svc };
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
