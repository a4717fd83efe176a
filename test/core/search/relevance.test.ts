/**
 * The one relevance (src/core/search/relevance.ts, rank.ts), through the real hybrid search over a
 * real store: nonsense finds nothing, a match on one common word of a longer question is not
 * relevant while a rare word or an exact identifier is, stop-words alone are nothing, a result
 * found by meaning needs the embedder's calibrated cosine, results are ranked by the relevance
 * they show, a word of the search context counts half, a named date and a named speaker match.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import {
  CONTEXT_SHARE,
  RELEVANCE_FLOOR,
  combineEvidence,
  contentTerms,
  keywordEvidence,
  vectorCalibration,
  vectorEvidence,
  vectorOnlyFloor,
  UNCALIBRATED,
  UNKNOWN_QUERY_FLOOR,
  type QueryEvidence,
} from '../../../src/core/search/relevance';
import { idf } from '../../../src/core/search/termStats';
import { TableEmbedder, searchFixture } from './fixture';

const NOTES = [
  'Authentication uses JWT tokens issued by the auth server.',
  'The user prefers dark mode in every editor window.',
  'We use pnpm as the package manager in this repository.',
  'The flaky test was fixed by waiting for the server to listen.',
  'Postgres connection pool size is 20 in production.',
  'Use the staging server for smoke tests before a release.',
  'Use feature flags for anything that is not finished.',
  'Use sha256sum to check the artifacts of a release.',
];

async function seeded() {
  const f = await searchFixture(new HashEmbedder({ dimension: 512 }));
  const mem = [];
  for (const content of NOTES) mem.push(await f.add({ content }));
  return { ...f, mem };
}

describe('relevance floor', () => {
  test('a nonsense query returns nothing; without the floor it returned every memory', async () => {
    const f = await seeded();
    try {
      const r = await f.searcher().search({ query: 'xyzzy frobnicate' });
      assert.deepEqual(r.results, []);
      assert.deepEqual(r.legs, { keyword: true, vector: true });
      const off = await f.searcher({ settings: { relevanceFloor: false } }).search({ query: 'xyzzy frobnicate' });
      assert.equal(off.results.length, NOTES.length, 'every memory is a candidate of the vector leg');
      assert.ok(
        off.results.every((x) => x.relevance < RELEVANCE_FLOOR),
        `all below the floor: ${off.results.map((x) => x.relevance.toFixed(2)).join(' ')}`,
      );
    } finally {
      await f.store.close();
    }
  });

  test('every word of the question matched is full relevance; the matched words are listed', async () => {
    const f = await seeded();
    try {
      const r = await f.searcher().search({ query: 'which package manager: pnpm?' });
      const top = r.results[0]!;
      assert.equal(top.memory.id, f.mem[2]!.id);
      assert.deepEqual(top.matchedTerms, ['package', 'manager', 'pnpm']);
      assert.ok(top.relevance > 0.99, `all three content words matched: ${top.relevance}`);
      assert.equal(top.evidence.keyword, 1);
    } finally {
      await f.store.close();
    }
  });

  test('a common word of the store alone is not relevant; a rare word and an exact identifier are', async () => {
    const f = await seeded();
    try {
      // "use" is in four of eight memories; "press" and "french" in none.
      const common = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'how do I use a French press' });
      assert.deepEqual(
        common.results.map((x) => x.memory.preview),
        [],
      );
      // "flaky" is in one memory: a rare word carries the question.
      const rare = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'flaky' });
      assert.deepEqual(
        rare.results.map((x) => x.memory.id),
        [f.mem[3]!.id],
      );
      // An identifier looked up exactly, next to an unknown word.
      const id = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'sha256sum mismatch' });
      assert.deepEqual(
        id.results.map((x) => x.memory.id),
        [f.mem[7]!.id],
      );
      assert.ok(id.results[0]!.relevance >= RELEVANCE_FLOOR);
    } finally {
      await f.store.close();
    }
  });

  test('an identifier with underscores finds the memory that holds it, as one word', async () => {
    const f = await seeded();
    try {
      const m = await f.add({ content: 'Node 18 crashed with ERR_REQUIRE_ESM after upgrading node-fetch to v3; we pinned 2.7.' });
      const r = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'ERR_REQUIRE_ESM' });
      assert.deepEqual(
        r.results.map((x) => x.memory.id),
        [m.id],
      );
      assert.deepEqual(r.results[0]!.matchedTerms, ['err_require_esm']);
      assert.ok(r.results[0]!.relevance >= RELEVANCE_FLOOR);
    } finally {
      await f.store.close();
    }
  });

  test('stop-words alone are no evidence', async () => {
    const f = await seeded();
    try {
      const r = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'what is in the' });
      assert.deepEqual(r.results, []);
    } finally {
      await f.store.close();
    }
  });

  test('a result found by meaning alone needs the calibrated cosine (an uncalibrated embedder: the strict default)', async () => {
    // The query shares no word with either memory: only the vector leg can find them.
    const table = new Map<string, number[]>([
      ['Close in meaning.', [0.7, Math.sqrt(1 - 0.49), 0]],
      ['Far in meaning.', [0.3, Math.sqrt(1 - 0.09), 0]],
    ]);
    const f = await searchFixture(new TableEmbedder(3, table, [1, 0, 0]));
    try {
      const close = await f.add({ content: 'Close in meaning.' });
      await f.add({ content: 'Far in meaning.' });
      const r = await f.searcher().search({ query: 'xyzzy' });
      assert.deepEqual(
        r.results.map((x) => x.memory.id),
        [close.id],
      );
      const hit = r.results[0]!;
      assert.deepEqual(hit.matchedTerms, []);
      assert.ok(Math.abs(hit.similarity! - 0.7) < 1e-6);
      const expected = (0.7 - UNCALIBRATED.floor) / (UNCALIBRATED.strong - UNCALIBRATED.floor);
      assert.ok(Math.abs(hit.relevance - expected) < 1e-6, `${hit.relevance} vs ${expected}`);
      assert.ok(Math.abs(hit.evidence.vector - expected) < 1e-6);
      // Cosines given in the settings (calibration runs) replace the embedder's.
      const low = await f.searcher({ settings: { vectorFloor: 0.1, vectorStrong: 0.5 } }).search({ query: 'xyzzy' });
      assert.equal(low.results.length, 2);
    } finally {
      await f.store.close();
    }
  });

  test('a query none of whose words the store holds needs strong meaning; one word the store knows is enough for the usual floor', async () => {
    // The memory's cosine with the query is 0.6: under the strict default calibration (0.45 / 0.9)
    // a vector evidence of 1/3, above RELEVANCE_FLOOR and below UNKNOWN_QUERY_FLOOR.
    const table = new Map<string, number[]>([
      ['Close in meaning.', [0.6, 0.8, 0]],
      ['Another note about the garden.', [0, 0, 1]],
    ]);
    const f = await searchFixture(new TableEmbedder(3, table, [1, 0, 0]));
    try {
      const close = await f.add({ content: 'Close in meaning.' });
      await f.add({ content: 'Another note about the garden.' });
      const v = (0.6 - UNCALIBRATED.floor) / (UNCALIBRATED.strong - UNCALIBRATED.floor);
      assert.ok(v >= RELEVANCE_FLOOR && v < UNKNOWN_QUERY_FLOOR);
      // No memory holds "xyzzy" or "plugh": meaning alone at 1/3 is not enough.
      assert.deepEqual((await f.searcher().search({ query: 'xyzzy plugh' })).results, []);
      // "garden" is a word of the store: the same cosine now clears the usual floor.
      const known = await f.searcher().search({ query: 'garden xyzzy' });
      const hit = known.results.find((x) => x.memory.id === close.id);
      assert.ok(hit, 'the memory close in meaning is found');
      assert.equal(hit.evidence.keyword, 0);
      assert.ok(Math.abs(hit.relevance - v) < 1e-6, `${hit.relevance} vs ${v}`);
      // The strict floor is a setting (minRelevanceUnknown): at the usual floor the unknown query finds it too.
      const loose = await f.searcher({ settings: { minRelevanceUnknown: RELEVANCE_FLOOR } }).search({ query: 'xyzzy plugh' });
      assert.deepEqual(
        loose.results.map((x) => x.memory.id),
        [close.id],
      );
    } finally {
      await f.store.close();
    }
  });

  test('results are ranked by the relevance they show: it never rises down the list', async () => {
    const f = await seeded();
    try {
      for (const query of ['use the server for tests', 'release artifacts', 'which package manager do we use', 'server']) {
        const r = await f.searcher().search({ query });
        assert.ok(r.results.length > 0, query);
        const shown = r.results.map((x) => x.relevance);
        assert.deepEqual(
          shown,
          [...shown].sort((a, b) => b - a),
          query,
        );
        assert.ok(
          r.results.every((x) => x.finalScore === x.relevance),
          'the list is ranked by the relevance',
        );
      }
    } finally {
      await f.store.close();
    }
  });
});

describe('what a memory is indexed with', () => {
  test('a word found only in the search context counts half, and the memory still shows only its own text', async () => {
    const f = await searchFixture(new HashEmbedder({ dimension: 64 }));
    try {
      const reply = await f.add({ content: 'Yes, every single weekend!', searchContext: 'Caroline: Do you still go hiking in the hills?' });
      const other = await f.add({ content: 'We went hiking in the hills last spring.' });
      for (const text of ['Sunny days are best.', 'The bakery opens at eight.', 'My bike needs new brakes.', 'Lunch was great today.'])
        await f.add({ content: text });
      const r = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'hiking hills' });
      assert.deepEqual(
        r.results.map((x) => x.memory.id),
        [other.id, reply.id],
      );
      const hit = r.results[1]!;
      assert.equal(hit.memory.preview, 'Yes, every single weekend!');
      assert.deepEqual(hit.matchedTerms, []);
      assert.deepEqual(hit.evidence.context, ['hiking', 'hills']);
      assert.ok(Math.abs(hit.evidence.keyword - CONTEXT_SHARE) < 1e-9, `half of a full match: ${hit.evidence.keyword}`);
    } finally {
      await f.store.close();
    }
  });

  test('"yesterday" in a note of 8 May 2023 answers a question about 7 May 2023', async () => {
    const f = await searchFixture(new HashEmbedder({ dimension: 64 }));
    try {
      const at = (iso: string) => f.clock.advance(Date.parse(iso) - f.clock.now().getTime());
      at('2023-05-08T14:00:00Z');
      const note = await f.add({ content: 'I went to the support group yesterday.' });
      at('2023-06-20T09:00:00Z');
      const later = await f.add({ content: 'The support group meets on Tuesdays.' });
      at('2024-01-01T09:00:00Z');
      const r = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'support group on 7 May 2023' });
      assert.deepEqual(
        r.results.map((x) => x.memory.id),
        [note.id, later.id],
      );
      assert.equal(r.results[0]!.evidence.date, true);
      assert.equal(r.results[1]!.evidence.date, false);
      const row = f.store.get<{ t: string }>('SELECT time_refs AS t FROM memories WHERE id = ?', [note.id]);
      assert.equal(row!.t, '[["2023-05-07","2023-05-08"]]');
    } finally {
      await f.store.close();
    }
  });

  test('a speaker the query names is matched by the speaker field, not only by text', async () => {
    const f = await searchFixture(new HashEmbedder({ dimension: 64 }));
    try {
      const byMel = await f.add({ content: 'I painted a sunset over the lake.', speaker: 'Melanie' });
      const toMel = await f.add({ content: 'Melanie, I painted the lake too!', speaker: 'Caroline' });
      for (const [text, who] of [
        ['The weather was lovely.', 'Caroline'],
        ['Work has been busy.', 'Melanie'],
        ['We baked bread.', 'Caroline'],
      ] as const)
        await f.add({ content: text, speaker: who });
      const r = await f.searcher({ embedder: undefined, vectors: undefined }).search({ query: 'What did Melanie paint?' });
      assert.deepEqual(
        r.results.slice(0, 2).map((x) => x.memory.id),
        [byMel.id, toMel.id],
      );
      assert.equal(r.results[0]!.evidence.speaker, true);
      assert.equal(r.results[1]!.evidence.speaker, false);
    } finally {
      await f.store.close();
    }
  });
});

describe('relevance pieces', () => {
  test('content terms: no stop-words, prefixes and quoted phrases kept, no repeats', () => {
    assert.deepEqual(
      contentTerms('What is the "package manager" we use for auth* AUTH* deploys?').map((t) => t.label),
      ['package manager', 'use', 'auth', 'deploys'],
    );
    assert.deepEqual(contentTerms('what is it'), []);
  });

  test('keyword evidence is the idf-weighted share of the units matched; the parts combine', () => {
    const n = 100;
    const q: QueryEvidence = {
      units: [
        { kind: 'term', label: 'use', rendered: '"use"', weight: idf(40, n) },
        { kind: 'term', label: 'pnpm', rendered: '"pnpm"', weight: idf(1, n) },
        { kind: 'date', label: 'date', windows: [], weight: idf(5, n) },
      ],
      total: idf(40, n) + idf(1, n) + idf(5, n),
      cal: undefined,
      weights: { keyword: 1, vector: 0 },
    };
    const none = { own: new Set<string>(), context: new Set<string>(), dated: false, speaker: null };
    assert.equal(keywordEvidence(q, none), 0);
    const common = keywordEvidence(q, { ...none, own: new Set(['"use"']) });
    const rare = keywordEvidence(q, { ...none, own: new Set(['"pnpm"']) });
    assert.ok(common < 0.15 && rare > 0.45, `a common word weighs little (${common}), a rare one a lot (${rare})`);
    assert.ok(Math.abs(keywordEvidence(q, { ...none, context: new Set(['"pnpm"']) }) - CONTEXT_SHARE * rare) < 1e-9);
    assert.equal(keywordEvidence(q, { own: new Set(['"use"', '"pnpm"']), context: new Set(), dated: true, speaker: null }), 1);

    const cal = { floor: 0.5, strong: 0.8, source: 'measured' as const };
    assert.equal(vectorEvidence(0.4, cal), 0);
    assert.ok(Math.abs(vectorEvidence(0.65, cal) - 0.5) < 1e-9);
    assert.equal(vectorEvidence(0.95, cal), 1);
    assert.equal(vectorEvidence(undefined, cal), 0);
    const even = { keyword: 0.5, vector: 0.5 };
    assert.equal(combineEvidence(0, 0, 0, even), 0);
    assert.ok(Math.abs(combineEvidence(0.5, 0.5, 0, even) - 0.75) < 1e-9);
    assert.ok(Math.abs(combineEvidence(0.5, 0, 0, { keyword: 1, vector: 0 }) - 0.5) < 1e-9, 'one leg: its evidence as it is');
    assert.ok(Math.abs(combineEvidence(0, 0, 0.15, even) - 0.15) < 1e-9, 'the graph boost is evidence too');
    assert.equal(combineEvidence(1, 0, 0, even), 1);
  });

  test('calibrations by embedder id: USE-lite and hash measured, unknown models strict', () => {
    assert.equal(vectorCalibration('builtin:use-lite').source, 'measured');
    assert.equal(vectorCalibration('hash:3').source, 'measured');
    assert.equal(vectorCalibration('ollama:nomic-embed-text:latest').source, 'provisional');
    assert.deepEqual(vectorCalibration('table:test'), UNCALIBRATED);
    assert.deepEqual(vectorCalibration(undefined), UNCALIBRATED);
    assert.ok(vectorOnlyFloor(UNCALIBRATED) > vectorOnlyFloor(vectorCalibration('builtin:use-lite')));
  });
});
