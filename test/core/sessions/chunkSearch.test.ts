// The hybrid query over session chunks (src/core/sessions/chunkSearch.ts): both legs under the same
// filters (a session, tags at the database level), min-max fusion with 0.7 / 0.3, a caller's query
// embedding, ties to the more recent chunk, and memory recall's relevance floor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { FlakyEmbedder, assistant, openSessions, user } from './fixture';

async function seeded(embedder?: FlakyEmbedder) {
  const f = await openSessions(tmpDir('am-csearch-'), embedder ? { embedder } : {});
  await f.sessions.storeEvents('deploy', [
    { payload: user('How do we deploy the billing service to production?') },
    { payload: assistant('Merge to main; the pipeline builds the image and Argo syncs the billing namespace.') },
    { payload: user('What if the canary fails?') },
    { payload: assistant('Argo rolls the billing deployment back to the previous image by itself.') },
  ]);
  await f.sessions.storeEvents('tests', [
    { payload: user('The checkout test is flaky on CI.') },
    { payload: assistant('It races the payment mock; I added an await before the assertion.') },
  ]);
  return f;
}

test('hybrid: both legs, min-max normalised, 0.7 vector + 0.3 full text, each hit saying where it came from', async () => {
  const f = await seeded();
  try {
    const r = await f.sessions.search({ query: 'billing deployment rollback' });
    assert.deepEqual(r.legs, { keyword: true, vector: true });
    assert.ok(r.hits.length >= 1);
    const top = r.hits[0]!;
    assert.equal(top.sessionId, 'deploy');
    assert.equal(top.text, 'Argo rolls the billing deployment back to the previous image by itself.');
    assert.equal(top.role, 'assistant');
    assert.deepEqual([top.sequenceStart, top.sequenceEnd], [4, 4]);
    for (const h of r.hits) {
      assert.ok(Math.abs(h.score - (0.7 * h.vectorScore + 0.3 * h.textScore)) < 1e-9, 'score = 0.7·vector + 0.3·text');
      assert.ok(h.vectorScore >= 0 && h.vectorScore <= 1 && h.textScore >= 0 && h.textScore <= 1);
      assert.ok(h.relevance > 0 && h.relevance <= 1);
    }
    assert.ok(r.hits.some((h) => h.vectorScore === 1) && r.hits.some((h) => h.textScore === 1), 'each leg’s best scales to 1');
    assert.deepEqual(top.matchedTerms, ['billing', 'deployment']);
    // Weights are the caller's to change.
    const textOnly = await f.sessions.search({ query: 'billing deployment rollback', vectorWeight: 0, ftsWeight: 1 });
    for (const h of textOnly.hits) assert.equal(h.score, h.textScore);
    // A vector weight of 0 is the full-text ranking alone: the query is not embedded, no vector leg runs.
    assert.deepEqual(textOnly.legs, { keyword: true, vector: false });
    assert.ok(textOnly.hits.length > 0 && textOnly.hits.every((h) => h.matchedTerms.length > 0));
  } finally {
    await f.close();
  }
});

test('filters at the database level: one session; every requested tag present', async () => {
  const f = await seeded();
  try {
    await f.sessions.storeNote({
      sessionId: 'tests',
      content: 'The checkout suite needs the payment mock started first.',
      tags: ['ci', 'checkout'],
    });
    const all = await f.sessions.search({ query: 'payment mock checkout' });
    assert.ok(all.hits.length >= 2);
    const one = await f.sessions.search({ query: 'billing', sessionId: 'tests' });
    assert.deepEqual(one.hits, [], 'no chunk of the tests session is about billing');
    const tagged = await f.sessions.search({ query: 'payment mock checkout', tags: ['ci', 'checkout'] });
    assert.equal(tagged.hits.length, 1);
    assert.deepEqual(tagged.hits[0]!.tags, ['ci', 'checkout']);
    assert.deepEqual((await f.sessions.search({ query: 'payment mock checkout', tags: ['ci', 'nightly'] })).hits, []);
  } finally {
    await f.close();
  }
});

test('a precomputed query embedding is used as it is: no embedder call; a wrong dimension is refused', async () => {
  const embedder = new FlakyEmbedder();
  const f = await seeded(embedder);
  try {
    const [v] = await embedder.embed(['billing deployment rolled back'], 'query');
    const before = embedder.calls;
    const r = await f.sessions.search({ query: 'billing deployment rolled back', queryEmbedding: Array.from(v!) });
    assert.equal(embedder.calls, before);
    assert.equal(r.legs.vector, true);
    assert.equal(r.hits[0]!.sessionId, 'deploy');
    await assert.rejects(
      f.sessions.search({ query: 'x', queryEmbedding: [1, 2, 3] }),
      /queryEmbedding: has 3 dimensions; the session index .* has 256/,
    );
    await assert.rejects(f.sessions.search({ query: 'x', queryEmbedding: [0, 0, 0] }), /queryEmbedding: is not usable/);
    await assert.rejects(f.sessions.search({ query: 'x', topK: 0 }), /topK: must be a whole number from 1 to 100/);
  } finally {
    await f.close();
  }
});

test('no chunk with a vector yet: the query is not embedded for a vector leg that could find nothing', async () => {
  const embedder = new FlakyEmbedder();
  const f = await openSessions(tmpDir('am-csearch-empty-'), { embedder });
  try {
    const empty = await f.sessions.search({ query: 'billing deployment rolled back' });
    assert.equal(embedder.calls, 0);
    assert.deepEqual(empty.hits, []);
    assert.equal(empty.legs.vector, false);
    // Once a session's chunks are embedded, the query is embedded again and the vector leg runs.
    await f.sessions.storeEvents('deploy', [{ payload: user('How do we deploy the billing service to production?') }]);
    while ((await f.backfill.runOnce()) > 0);
    const before = embedder.calls;
    const r = await f.sessions.search({ query: 'shipping the invoicing app' });
    assert.ok(embedder.calls > before);
    assert.equal(r.legs.vector, true);
  } finally {
    await f.close();
  }
});

test('ties go to the more recent chunk (sequence_end)', async () => {
  const f = await openSessions(tmpDir('am-csearch-'));
  try {
    await f.sessions.storeEvents('a', [{ payload: user('Rotate the signing key.') }]);
    await f.sessions.storeEvents('b', [
      { payload: user('unrelated') },
      { payload: user('other') },
      { payload: user('Rotate the signing key.') },
    ]);
    const r = await f.sessions.search({ query: 'rotate signing key' });
    assert.equal(r.hits.length, 2);
    assert.equal(r.hits[0]!.score, r.hits[1]!.score);
    assert.deepEqual(
      r.hits.map((h) => [h.sessionId, h.sequenceEnd]),
      [
        ['b', 3],
        ['a', 1],
      ],
    );
  } finally {
    await f.close();
  }
});

test('the relevance floor of memory recall: nonsense and stop-words-only queries find nothing', async () => {
  const f = await seeded();
  try {
    assert.deepEqual((await f.sessions.search({ query: 'xyzzy frobnicate quux' })).hits, []);
    assert.deepEqual((await f.sessions.search({ query: 'what is it' })).hits, []);
    const off = await f.sessions.search({ query: 'xyzzy frobnicate quux' }, { relevanceFloor: false });
    assert.ok(off.hits.length > 0, 'without the floor the vector leg returns its nearest chunks anyway');
  } finally {
    await f.close();
  }
});

test('hits come with their rows from one read: more hits, no more statements', async () => {
  const f = await openSessions(tmpDir('am-csearch-'));
  try {
    await f.sessions.storeEvents(
      'long',
      Array.from({ length: 14 }, (_, i) => ({
        payload: user(`Deploy step ${i} of the billing service: ${'check the canary. '.repeat(i)}`),
      })),
    );
    const query = 'deploy billing canary';
    await f.sessions.search({ query, topK: 2 }); // warm caches alike
    const seen: string[] = [];
    for (const m of ['get', 'all'] as const) {
      const real = f.store[m].bind(f.store) as (sql: string, params?: unknown[]) => unknown;
      (f.store as unknown as Record<string, unknown>)[m] = (sql: string, params?: unknown[]) => {
        seen.push(sql);
        return real(sql, params);
      };
    }
    const few = await f.sessions.search({ query, topK: 2 });
    const fewCount = seen.length;
    seen.length = 0;
    const many = await f.sessions.search({ query, topK: 12 });
    assert.equal(few.hits.length, 2);
    assert.equal(many.hits.length, 12);
    assert.equal(seen.length, fewCount, seen.join('\n'));
    for (const h of many.hits) {
      const row = f.store.get<{ chunk_text: string }>('SELECT chunk_text FROM chunks WHERE rid = ?', [h.rid]);
      assert.equal(h.text, row!.chunk_text);
    }
  } finally {
    await f.close();
  }
});
