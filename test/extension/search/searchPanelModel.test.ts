import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { recentView, resultView } from '../../../src/extension/search/searchPanelModel';
import type { MemorySummary, SearchHit } from '../../../src/engine/protocol';

const summary = (over: Partial<MemorySummary> = {}): MemorySummary =>
  ({
    id: 'm1',
    type: 'fact',
    scope: 'project',
    title: 'We use pnpm as the package…',
    preview: 'We use pnpm as the package manager.',
    tags: ['build'],
    importance: 0.5,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...over,
  }) as MemorySummary;

describe('search panel model', () => {
  test('a hit carries its relevance, matched words and cosine to the webview; a recent memory carries none', () => {
    const hit: SearchHit = {
      memory: summary(),
      content: 'We use pnpm as the package manager.',
      score: 0.5,
      relevance: 0.83,
      matchedTerms: ['pnpm'],
      similarity: 0.61,
      legs: { keyword: 1, vector: 0.2 },
      store: 'project',
      matchType: 'hybrid',
    };
    const v = resultView(hit);
    assert.equal(v.title, '');
    assert.equal(v.relevance, 0.83);
    assert.deepEqual(v.matchedTerms, ['pnpm']);
    assert.equal(v.similarity, 0.61);
    assert.equal(v.matchType, 'hybrid');
    const r = recentView(summary({ title: 'Build tooling' }));
    assert.equal(r.relevance, undefined);
    assert.deepEqual(r.matchedTerms, []);
    assert.equal(r.title, 'Build tooling');
    assert.equal(r.content, 'We use pnpm as the package manager.');
  });
});
