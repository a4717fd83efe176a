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

test('a created-at bound that is not an ISO date is invalid_input naming the field', () => {
  for (const [field, value] of [
    ['createdAfter', 'last tuesday'],
    ['createdBefore', '2026-13-45'],
    ['createdAfter', 20260502],
  ] as const) {
    assert.throws(
      () => buildMemoryFilter('p', { [field]: value as unknown as string }, NOW),
      (e: unknown) => e instanceof ValidationError && e.code === 'invalid_input' && e.field === field,
      `${field}=${value}`,
    );
  }
  const ok = buildMemoryFilter('p', { createdAfter: '2026-05-02', createdBefore: '2026-05-03T12:00:00+02:00' }, NOW);
  assert.ok(ok.params.includes('2026-05-02T00:00:00.000Z'), 'a date alone is midnight UTC');
  assert.ok(ok.params.includes('2026-05-03T10:00:00.000Z'), 'a date-time is its instant');
});

test('the created-at range compares instants, whatever ISO form a memory kept (an import with an offset)', async () => {
  const f = await searchFixture();
  const early = await f.add({ content: 'The staging database listens on port 5433.' });
  const late = await f.add({ content: 'The staging database is reset every night.' });
  f.store.transaction((tx) => {
    // 01:00 at +02:00 is 23:00 UTC the day before: as text it sorts after 2026-05-02, as an instant it is before.
    tx.run('UPDATE memories SET created_at = ? WHERE rid = ?', ['2026-05-02T01:00:00+02:00', early.rid]);
    tx.run('UPDATE memories SET created_at = ? WHERE rid = ?', ['2026-05-02T09:30:00Z', late.rid]);
  });
  const search = (range: { createdAfter?: string; createdBefore?: string }) =>
    f
      .searcher()
      .search({ query: 'staging database', ...range })
      .then((r) => r.results.map((x) => x.memory.id));
  assert.deepEqual(await search({ createdAfter: '2026-05-02' }), [late.id]);
  assert.deepEqual(await search({ createdBefore: '2026-05-02' }), [early.id]);
  assert.deepEqual((await search({})).sort(), [early.id, late.id].sort());
  await f.store.close();
});
