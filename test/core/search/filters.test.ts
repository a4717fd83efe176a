/** The shared search filter: bad filter values are invalid_input, never dropped silently. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildMemoryFilter } from '../../../src/core/search/filters';
import { ValidationError } from '../../../src/core/memory/errors';
import { searchFixture } from './fixture';

const NOW = new Date('2026-03-01T12:00:00.000Z');

test('a tags filter holding non-strings is invalid_input', () => {
  for (const tags of [[1], ['ui', { a: 1 }], [null], 'ui']) {
    assert.throws(
      () => buildMemoryFilter('p', { tags: tags as unknown as string[] }, NOW),
      (e: unknown) => e instanceof ValidationError && e.code === 'invalid_input' && e.field === 'tags',
      JSON.stringify(tags),
    );
  }
  const ok = buildMemoryFilter('p', { tags: ['UI'] }, NOW);
  assert.ok(ok.params.includes('ui'));
});

test('search with a non-string tag rejects instead of searching without the filter', async () => {
  const f = await searchFixture();
  await f.add({ content: 'The user prefers dark mode in every editor window.', tags: ['ui'] });
  await assert.rejects(
    f.searcher().search({ query: 'dark mode', tags: [42 as unknown as string] }),
    (e: unknown) => e instanceof ValidationError,
  );
  await assert.rejects(f.searcher().search({ query: 'dark mode', limit: Number.NaN }), /got NaN/);
  await f.store.close();
});
