// The pruned full-text ranking of session chunks (src/core/sessions/chunkTextRank.ts) gives exactly
// the exhaustive ranking — bm25() over every matching chunk in SQL, filters inside, ties to the
// larger sequence_end then rid — on a seeded corpus with many matches and many equal scores,
// unfiltered, per session and per tag, for k from 1 to more than there are matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openSessions } from './fixture';
import { ensureBm25 } from '../../../src/core/search/bm25';
import { buildFtsTerms, joinFtsTerms } from '../../../src/core/search/ftsQuery';
import { rankChunkText, type ChunkWhere } from '../../../src/core/sessions/chunkTextRank';
import type { Store } from '../../../src/core/store/store';

/** xorshift32: the same corpus and queries on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

// A small vocabulary: most queries match hundreds of chunks, and short texts of the same words tie.
const WORDS = ['deploy', 'billing', 'canary', 'rollback', 'cache', 'index', 'query', 'token', 'schema', 'worker', 'queue', 'retry'];
const FILLER = ['the', 'a', 'then', 'and', 'we', 'it', 'was', 'after', 'because', 'so'];

function sentence(next: () => number): string {
  const n = 1 + Math.floor(next() * 14);
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(next() < 0.45 ? WORDS[Math.floor(next() * WORDS.length)]! : FILLER[Math.floor(next() * FILLER.length)]!);
  return out.join(' ');
}

function exhaustive(store: Store, expr: string, where: ChunkWhere, k: number): { rid: number; seq: number; bm25: number }[] {
  const rows = store.all<{ rid: number; seq: number; score: number }>(
    `SELECT c.rid AS rid, c.sequence_end AS seq, bm25(matchinfo(chunks_fts, 'pcnalx')) AS score FROM chunks_fts ` +
      `CROSS JOIN chunks c ON c.rid = chunks_fts.docid WHERE chunks_fts MATCH ? AND ${where.sql} ` +
      `ORDER BY score ASC, c.sequence_end DESC, c.rid DESC LIMIT ?`,
    [expr, ...where.params, k],
  );
  return rows.map((r) => ({ rid: Number(r.rid), seq: Number(r.seq), bm25: -Number(r.score) }));
}

test('the pruned chunk ranking is the exhaustive ranking: same chunks, order and scores, with and without filters', async () => {
  const f = await openSessions(tmpDir('am-ctrank-'), { noVectors: true });
  try {
    const next = rng(20261128);
    for (let s = 0; s < 6; s++) {
      const events = Array.from({ length: 250 }, (_, i) => ({ payload: { role: i % 2 ? 'assistant' : 'user', content: sentence(next) } }));
      await f.sessions.storeEvents(`s${s}`, events);
      for (let n = 0; n < 20; n++)
        await f.sessions.storeNote({ sessionId: `s${s}`, content: sentence(next), tags: n % 3 ? ['ops'] : ['ops', 'billing'] });
    }
    ensureBm25(f.store);
    const filters: ChunkWhere[] = [
      { sql: '1', params: [] },
      { sql: 'c.session_id = ?', params: ['s2'] },
      { sql: '(SELECT count(*) FROM chunk_tags t WHERE t.rid = c.rid AND t.tag IN (?, ?)) = ?', params: ['ops', 'billing', 2] },
    ];
    let compared = 0;
    let manyMatches = 0;
    let ties = 0;
    for (let q = 0; q < 40; q++) {
      const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => WORDS[Math.floor(next() * WORDS.length)]!);
      const terms = buildFtsTerms(words.join(' '))!;
      const expr = joinFtsTerms(terms);
      const matches = Number(f.store.get<{ n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [expr])!.n);
      if (matches > 200) manyMatches++;
      for (const where of filters) {
        for (const k of [1, 10, 30, 2000]) {
          const got = rankChunkText(f.store, expr, terms.length, where, k);
          assert.ok(got, `the pruned path applies to "${expr}"`);
          const want = exhaustive(f.store, expr, where, k);
          assert.deepEqual(got, want, `"${expr}" where ${where.sql} k=${k}`);
          for (let i = 1; i < want.length; i++) if (want[i]!.bm25 === want[i - 1]!.bm25) ties++;
          compared++;
        }
      }
    }
    assert.equal(compared, 40 * 3 * 4);
    assert.ok(manyMatches >= 20, `most queries match many chunks (${manyMatches} of 40 match over 200)`);
    assert.ok(ties > 100, `equal scores, ordered by sequence_end and rid, are compared too (${ties})`);
  } finally {
    await f.close();
  }
});

test('the chunk query answers the same with the pruned ranking as the straightforward one would', async () => {
  const f = await openSessions(tmpDir('am-ctrank2-'), { noVectors: true });
  try {
    await f.sessions.storeEvents('a', [
      { payload: { role: 'user', content: 'deploy the billing worker' } },
      { payload: { role: 'assistant', content: 'the billing worker retries the queue' } },
      { payload: { role: 'user', content: 'billing' } },
    ]);
    const r = await f.sessions.search({ query: 'billing worker', vectorWeight: 0, ftsWeight: 1, topK: 10 });
    ensureBm25(f.store);
    const terms = buildFtsTerms('billing worker')!;
    const want = exhaustive(f.store, joinFtsTerms(terms), { sql: '1', params: [] }, 10);
    assert.deepEqual(
      r.hits.map((h) => h.rid),
      want.map((w) => w.rid),
    );
    assert.equal(r.hits.length, 3);
  } finally {
    await f.close();
  }
});
