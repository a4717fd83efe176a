/**
 * Dates named in a query (src/core/search/queryDates.ts) and the date boost of the hybrid
 * ranking (fuse.ts applyDateBoost, settings.dateBoost).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inDateWindows, parseQueryDates } from '../../../src/core/search/queryDates';
import { DEFAULT_SEARCH_SETTINGS, resolveSearchSettings } from '../../../src/core/search/settings';
import { searchFixture } from './fixture';

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const days = (q: string) => parseQueryDates(q).map((w) => `${iso(w.start)}..${iso(w.end)}`);

describe('parseQueryDates', () => {
  test('days, months and years with a year, in the common spellings', () => {
    assert.deepEqual(days('Which team did John sign with on 21 May, 2023?'), ['2023-05-21..2023-05-22']);
    assert.deepEqual(days('What did she show on October 13, 2023?'), ['2023-10-13..2023-10-14']);
    assert.deepEqual(days('on the 3rd of June 2023'), ['2023-06-03..2023-06-04']);
    assert.deepEqual(days('What happened in Aug. 2023'), ['2023-08-01..2023-09-01']);
    assert.deepEqual(days('in December 2023'), ['2023-12-01..2024-01-01']);
    assert.deepEqual(days('What charity event in 2024?'), ['2024-01-01..2025-01-01']);
    assert.deepEqual(days('deploy of 2023-02-28 broke'), ['2023-02-28..2023-03-01']);
    // Two dates; the more specific pattern claims its text first (no extra "2023" year window).
    assert.deepEqual(days('between August 11 and August 15 2023'), ['2023-08-15..2023-08-16']);
    assert.deepEqual(days('from 1 May 2023 to June 2024'), ['2023-05-01..2023-05-02', '2024-06-01..2024-07-01']);
  });

  test('no year, relative dates, impossible days and other numbers name nothing', () => {
    assert.deepEqual(days('When did Melanie go camping in June?'), []);
    assert.deepEqual(days('What did we decide last week?'), []);
    assert.deepEqual(days('on 31 February 2023'), []);
    assert.deepEqual(days('port 8080 and 42 retries'), []);
    assert.deepEqual(days('ES2023 target'), []);
    assert.deepEqual(days(''), []);
  });

  test('inDateWindows: half-open windows widened by the slack', () => {
    const w = parseQueryDates('on 21 May 2023');
    assert.equal(inDateWindows('2023-05-21T00:00:00.000Z', w, 0), true);
    assert.equal(inDateWindows('2023-05-21T23:59:59.999Z', w, 0), true);
    assert.equal(inDateWindows('2023-05-22T00:00:00.000Z', w, 0), false);
    assert.equal(inDateWindows('2023-05-22T10:00:00.000Z', w, 86_400_000), true);
    assert.equal(inDateWindows('2023-05-20T10:00:00.000Z', w, 86_400_000), true);
    assert.equal(inDateWindows('2023-05-19T10:00:00.000Z', w, 86_400_000), false);
    assert.equal(inDateWindows('not a date', w, 0), false);
    assert.equal(inDateWindows('2023-05-21T10:00:00.000Z', [], 0), false);
  });
});

describe('hybrid search: date boost', () => {
  test('of two equal matches, the one written on the date the query names comes first', async () => {
    const f = await searchFixture();
    try {
      // The clock starts at 2026-03-01T12:00Z; the second note is written 10 days later.
      // Full text only, so both notes score exactly the same on the query's words.
      const first = await f.add({ content: 'Signed the lease for the new office: alpha.' });
      f.clock.advance(10 * 86_400_000);
      const second = await f.add({ content: 'Signed the lease for the new office: bravo.' });
      const ids = async (query: string, settings: Record<string, number> = {}) =>
        // The date boost belongs to the min-max ranking (settings.ranking 'hybrid'); the relevance ranking is checked below.
        (
          await f
            .searcher({ embedder: undefined, vectors: undefined, settings: { ranking: 'hybrid' as const, ...settings } })
            .search({ query })
        ).results.map((r) => [r.memory.id, r.finalScore, r.dateBoost] as const);

      // No date: equal scores, newer first (the recency tie-break).
      const plain = await ids('signed lease office');
      assert.deepEqual(
        plain.map((r) => r[0]),
        [second.id, first.id],
      );
      // The first note's day: it rises by exactly the boost.
      const dated = await ids('signed lease office on 1 March 2026');
      assert.deepEqual(
        dated.map((r) => r[0]),
        [first.id, second.id],
      );
      assert.ok(Math.abs(dated[0]![1] - dated[1]![1] - DEFAULT_SEARCH_SETTINGS.dateBoost) < 1e-9);
      assert.deepEqual(
        dated.map((r) => r[2]),
        [DEFAULT_SEARCH_SETTINGS.dateBoost, 0],
      );
      assert.deepEqual(
        plain.map((r) => r[2]),
        [0, 0],
      );
      // The second note's month day; the month of both; boost off.
      assert.deepEqual(
        (await ids('signed lease office on March 11, 2026')).map((r) => r[0]),
        [second.id, first.id],
      );
      const month = await ids('signed lease office in March 2026');
      assert.deepEqual(
        month.map((r) => r[0]),
        [second.id, first.id],
      );
      assert.equal(month[0]![1], month[1]![1]);
      const off = await ids('signed lease office on 1 March 2026', { dateBoost: 0 });
      assert.deepEqual(
        off.map((r) => r[0]),
        [second.id, first.id],
      );
      // Slack: a day after the note (time zones) still counts with the default 1 day, not with 0.
      assert.deepEqual(
        (await ids('signed lease office on 2 March 2026')).map((r) => r[0]),
        [first.id, second.id],
      );
      assert.deepEqual(
        (await ids('signed lease office on 2 March 2026', { dateSlackDays: 0 })).map((r) => r[0]),
        [second.id, first.id],
      );
      // Ranked by relevance (the default), the named date is one more thing the query asks about:
      // the note of that day matches all of it and comes first, with the higher relevance.
      const byRelevance = await f
        .searcher({ embedder: undefined, vectors: undefined })
        .search({ query: 'signed lease office on 1 March 2026' });
      assert.deepEqual(
        byRelevance.results.map((r) => r.memory.id),
        [first.id, second.id],
      );
      assert.equal(byRelevance.results[0]!.evidence.date, true);
      assert.equal(byRelevance.results[1]!.evidence.date, false);
      assert.ok(byRelevance.results[0]!.relevance > byRelevance.results[1]!.relevance);
    } finally {
      await f.store.close();
    }
  });

  test('defaults are the measured ones; nonsense is refused', () => {
    assert.equal(DEFAULT_SEARCH_SETTINGS.dateBoost, 0.2);
    assert.equal(DEFAULT_SEARCH_SETTINGS.dateSlackDays, 1);
    assert.throws(() => resolveSearchSettings({ dateBoost: -0.1 }), RangeError);
    assert.throws(() => resolveSearchSettings({ dateBoost: 2 }), RangeError);
    assert.throws(() => resolveSearchSettings({ dateSlackDays: Number.NaN }), RangeError);
  });
});
