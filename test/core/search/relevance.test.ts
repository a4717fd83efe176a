/**
 * The absolute relevance floor and the relevance people see (src/core/search/relevance.ts),
 * through the real hybrid search over a real store: nonsense finds nothing, a real word does,
 * stop-words alone do not, a vector-only result needs the embedder's calibrated cosine.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { contentTerms, relevanceOf, vectorCalibration, UNCALIBRATED } from '../../../src/core/search/relevance';
import { TableEmbedder, searchFixture } from './fixture';

const NOTES = [
  'Authentication uses JWT tokens issued by the auth server.',
  'The user prefers dark mode in every editor window.',
  'We use pnpm as the package manager in this repository.',
  'The flaky test was fixed by waiting for the server to listen.',
  'Postgres connection pool size is 20 in production.',
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
      assert.equal(off.results.length, NOTES.length, 'the min-max ranking alone scores nonsense');
      assert.equal(off.results[0]!.finalScore, 0.5, 'best vector candidate scaled to 1 × weight 0.5');
    } finally {
      await f.store.close();
    }
  });

  test('a keyword match on a real word clears the floor, with the matched words and a relevance', async () => {
    const f = await seeded();
    try {
      const r = await f.searcher().search({ query: 'which package manager: pnpm?' });
      const top = r.results[0]!;
      assert.equal(top.memory.id, f.mem[2]!.id);
      assert.deepEqual(top.matchedTerms, ['package', 'manager', 'pnpm']);
      assert.ok(top.relevance > 0.99, `all three content words matched: ${top.relevance}`);
      // Stemmed like the keyword leg: "tokens" in the memory, "token" in the query.
      const jwt = (await f.searcher().search({ query: 'token xyzzy' })).results;
      assert.deepEqual(
        jwt.map((x) => x.memory.id),
        [f.mem[0]!.id],
      );
      assert.deepEqual(jwt[0]!.matchedTerms, ['token']);
      assert.ok(jwt[0]!.relevance >= 0.75 && jwt[0]!.relevance < 1, `one of two words: ${jwt[0]!.relevance}`);
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

  test('a vector-only result needs a cosine at the floor (an uncalibrated embedder: the strict default)', async () => {
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
      // A floor given in the settings (calibration runs) replaces the embedder's.
      const low = await f.searcher({ settings: { vectorFloor: 0.2 } }).search({ query: 'xyzzy' });
      assert.equal(low.results.length, 2);
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

  test('relevance: 0 without evidence, 1 with every word, keyword and vector evidence combine', () => {
    const cal = { floor: 0.5, strong: 0.8, source: 'measured' as const };
    assert.equal(relevanceOf(0, 3, 0.4, cal), 0);
    assert.equal(relevanceOf(3, 3, undefined, undefined), 1);
    assert.equal(relevanceOf(1, 2, undefined, undefined), 0.75);
    assert.ok(Math.abs(relevanceOf(0, 2, 0.65, cal) - 0.5) < 1e-9);
    assert.ok(Math.abs(relevanceOf(1, 2, 0.65, cal) - (1 - 0.25 * 0.5)) < 1e-9);
    assert.equal(relevanceOf(0, 2, 0.95, cal), 1);
  });

  test('calibrations by embedder id: USE-lite and hash measured, unknown models strict', () => {
    assert.equal(vectorCalibration('builtin:use-lite').source, 'measured');
    assert.equal(vectorCalibration('hash:3').source, 'measured');
    assert.equal(vectorCalibration('ollama:nomic-embed-text:latest').floor, 0.6);
    assert.deepEqual(vectorCalibration('table:test'), UNCALIBRATED);
    assert.deepEqual(vectorCalibration(undefined), UNCALIBRATED);
  });
});
