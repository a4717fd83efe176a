// The pruned exact top-k (fullTextRank.ts) against the straightforward ranking of every matching
// row (fullText.ts, and the one-pass SQL it stands for) on a real store with randomized queries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { buildMemoryFilter, type WhereClause } from '../../../src/core/search/filters';
import { FTS_COLUMN_WEIGHTS, fullTextScores, fullTextSearch, type TextHit } from '../../../src/core/search/fullText';
import { FullTextRanking, parseIntList, parseRows, readHexVarints, readVarints } from '../../../src/core/search/fullTextRank';
import { joinFtsTerms } from '../../../src/core/search/ftsQuery';
import { ensureBm25 } from '../../../src/core/search/bm25';
import { liveMeta } from '../../../src/core/search/liveMeta';
import { HYDRATE_COLUMNS, HybridSearch, SUMMARY_COLUMNS } from '../../../src/core/search/hybrid';
import { PREVIEW_CHARS, rowToSummary } from '../../../src/core/memory/rows';
import { IndexVectorSearcher } from '../../../src/core/search/indexSearcher';
import { ExactIndex } from '../../../src/core/vector/exactIndex';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { tmpDir } from '../../helpers/tmp';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const PROJECTS = ['p/one', 'p/two'];
const TYPES = ['general', 'fix', 'decision'];
const TAGS = ['auth', 'db', 'ui', 'perf'];

/** Deterministic xorshift, so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const VOCAB = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x${'abcdefghij'[i % 10]}`);
// A few very common words (Zipf head), so some queries match most rows.
const zipf = (r: () => number): string => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(r() * Math.log(VOCAB.length + 1))) - 1)]!;

let store: Store;
let maxRid = 0;

before(async () => {
  store = await Store.open({ dir: tmpDir('am-ftrank-') });
  const r = rng(12345);
  const insert = (
    rid: number,
    title: string,
    content: string,
    tags: string[],
    extra: { deleted?: boolean; expires?: string | null; project?: string; created: string },
  ) => {
    store.transaction((tx) => {
      tx.run(
        'INSERT INTO memories (rid, id, project_id, scope, type, title, content, normalized_content, content_hash, doc_hash, tags, created_at, updated_at, expires_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          rid,
          `id-${rid}`,
          extra.project ?? PROJECTS[0]!,
          r() < 0.2 ? 'global' : 'project',
          TYPES[Math.floor(r() * TYPES.length)]!,
          title,
          content,
          content,
          `h${rid}`,
          `h${rid}`,
          JSON.stringify(tags),
          extra.created,
          extra.created,
          extra.expires ?? null,
          extra.deleted ? extra.created : null,
        ],
      );
      for (const t of tags) tx.run('INSERT INTO memory_tags (tag, rid) VALUES (?, ?)', [t, rid]);
    });
  };
  const words = (n: number) => Array.from({ length: n }, () => zipf(r)).join(' ');
  const dup = words(20); // identical rows: equal scores, ties broken by created_at then rid
  for (let rid = 1; rid <= 1500; rid++) {
    // Few distinct timestamps, so created_at ties happen and rid decides.
    const created = new Date(Date.UTC(2026, 0, 1 + Math.floor(r() * 20))).toISOString();
    const len = r() < 0.1 ? 1 + Math.floor(r() * 3) : 5 + Math.floor(r() * 60);
    const content = r() < 0.03 ? dup : `${words(len)}${r() < 0.3 ? ` ${zipf(r)} ${zipf(r)}` : ''}`;
    const title = r() < 0.2 ? '' : words(1 + Math.floor(r() * 4));
    const tags = TAGS.filter(() => r() < 0.25);
    const expires = r() < 0.1 ? (r() < 0.5 ? '2026-02-01T00:00:00.000Z' : '2026-09-01T00:00:00.000Z') : null;
    insert(rid, title, content, tags, { deleted: r() < 0.08, expires, project: r() < 0.15 ? PROJECTS[1] : PROJECTS[0], created });
    maxRid = rid;
  }
  // Updates and hard deletes go through the FTS triggers: docsize and stat must follow.
  for (let i = 0; i < 60; i++) {
    const rid = 1 + Math.floor(r() * maxRid);
    store.transaction((tx) =>
      tx.run('UPDATE memories SET content = ?, title = ? WHERE rid = ?', [words(10 + Math.floor(r() * 30)), words(2), rid]),
    );
  }
  for (let i = 0; i < 30; i++) store.transaction((tx) => tx.run('DELETE FROM memories WHERE rid = ?', [1 + Math.floor(r() * maxRid)]));
});

after(async () => {
  await store.close({ snapshot: false });
});

/** The one-pass definition of the keyword top-k: every matching row ranked, filters inside. */
function reference(expr: string, where: WhereClause, k: number): TextHit[] {
  ensureBm25(store); // the store knows no ranking functions until search registers them
  const sql =
    `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at, bm25(matchinfo(memories_fts, 'pcnalx'), 1, 1, 1) AS score ` +
    `FROM memories_fts CROSS JOIN memories m ON m.rid = memories_fts.docid WHERE memories_fts MATCH ? AND ${where.sql} ` +
    `ORDER BY score ASC, m.created_at DESC, m.rid DESC LIMIT ?`;
  return store
    .all(sql, [expr, ...where.params, k])
    .map((r) => ({ rid: Number(r.rid), id: String(r.id), createdAt: String(r.created_at), bm25: -Number(r.score) }));
}

function randomTerms(r: () => number): string[] {
  const n = 1 + Math.floor(r() * 5);
  const terms: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    const w = r() < 0.3 ? VOCAB[Math.floor(r() * 8)]! : zipf(r); // 30 %: one of the most common words
    if (x < 0.1)
      terms.push(`"${w.slice(0, 2 + Math.floor(r() * 3))}*"`); // prefix
    else if (x < 0.2)
      terms.push(`"${w} ${zipf(r)}"`); // phrase
    else if (x < 0.25) terms.push('"nosuchwordanywhere"');
    else terms.push(`"${w}"`);
  }
  return [...new Set(terms)];
}

function randomWhere(r: () => number): WhereClause {
  const f: { types?: string[]; scope?: 'project' | 'global'; tags?: string[] } = {};
  if (r() < 0.3) f.types = TYPES.filter(() => r() < 0.5);
  if (r() < 0.2) f.scope = r() < 0.5 ? 'project' : 'global';
  if (r() < 0.2) f.tags = [TAGS[Math.floor(r() * TAGS.length)]!];
  return buildMemoryFilter(r() < 0.9 ? PROJECTS[0]! : PROJECTS[1]!, f as never, NOW);
}

/** Same ids in the same order with the very same scores (same doubles, not merely within 1e-9). */
function assertSameHits(got: readonly TextHit[], want: readonly TextHit[], what: string): void {
  assert.deepEqual(
    got.map((h) => [h.rid, h.id, h.createdAt]),
    want.map((h) => [h.rid, h.id, h.createdAt]),
    what,
  );
  for (let i = 0; i < want.length; i++)
    assert.ok(Object.is(got[i]!.bm25, want[i]!.bm25), `${what}: score #${i} ${got[i]!.bm25} vs ${want[i]!.bm25}`);
}

describe('FullTextRanking (exact pruned top-k)', () => {
  test('the same top-k as ranking every row, over 400 randomized queries and filters', () => {
    const r = rng(777);
    let pruned = 0;
    for (let q = 0; q < 400; q++) {
      const terms = randomTerms(r);
      const where = randomWhere(r);
      const k = [1, 3, 10, 50, 60, 200, 2000][Math.floor(r() * 7)]!;
      const expr = joinFtsTerms(terms);
      const ranking = FullTextRanking.prepare(store, terms, where);
      assert.ok(ranking, `prepare(${expr})`);
      const got = ranking.topK(k);
      const what = `query ${q}: ${expr}, k ${k}, where ${JSON.stringify(where.params)}`;
      assertSameHits(got, reference(expr, where, k), what);
      assertSameHits(got, fullTextSearch(store, expr, where, k), `${what} (fullTextSearch)`);
      if (got.length === k && ranking.rows > 4 * k) pruned++;
    }
    assert.ok(pruned > 20, `queries where pruning could apply: ${pruned}`);
  });

  test('scores() equals fullTextScores for mixed rids (matching, filtered out, deleted, unknown)', () => {
    const r = rng(99);
    for (let q = 0; q < 150; q++) {
      const terms = randomTerms(r);
      const where = randomWhere(r);
      const ranking = FullTextRanking.prepare(store, terms, where)!;
      if (r() < 0.5) ranking.topK(20); // scores() after topK reuses what it looked up
      const rids = Array.from({ length: 1 + Math.floor(r() * 80) }, () => Math.floor(r() * (maxRid + 50)) - 5);
      const got = ranking.scores(rids);
      const want = fullTextScores(store, joinFtsTerms(terms), where, rids);
      assert.deepEqual(
        [...got.keys()].sort((a, b) => a - b),
        [...want.keys()].sort((a, b) => a - b),
        `query ${q}`,
      );
      for (const [rid, h] of want) {
        assert.equal(got.get(rid)!.id, h.id);
        assert.ok(Object.is(got.get(rid)!.bm25, h.bm25), `query ${q} rid ${rid}`);
      }
    }
  });

  test('HybridSearch answers the same with and without pruning (results, scores, match types)', async () => {
    const embedder = new HashEmbedder({ dimension: 64 });
    const index = new ExactIndex({ dim: 64 });
    const rows = store.all<{ rid: number; content: string }>('SELECT rid, content FROM memories');
    const vecs = await embedder.embed(
      rows.map((r) => String(r.content)),
      'document',
    );
    rows.forEach((r, i) => index.add(Number(r.rid), vecs[i]!));
    const vectors = new IndexVectorSearcher(index, embedder.space);
    const deps = { projectId: PROJECTS[0]!, embedder, vectors, now: () => NOW };
    const pruned = new HybridSearch(store, deps);
    const plain = new HybridSearch(store, { ...deps, settings: { fullTextPruning: false } });
    const r = rng(4242);
    let keywordHits = 0;
    for (let q = 0; q < 60; q++) {
      const query = Array.from({ length: 1 + Math.floor(r() * 4) }, () => (r() < 0.3 ? VOCAB[Math.floor(r() * 8)]! : zipf(r))).join(' ');
      const req = { query, limit: 1 + Math.floor(r() * 40), ...(r() < 0.3 ? { types: [TYPES[Math.floor(r() * 3)]!] } : {}) };
      const a = await pruned.search(req as never);
      const b = await plain.search(req as never);
      const view = (x: typeof a) => x.results.map((h) => [h.memory.id, h.textScore, h.vectorScore, h.finalScore, h.matchType]);
      assert.deepEqual(view(a), view(b), `query ${q}: ${query}`);
      keywordHits += a.results.filter((h) => h.matchType !== 'vector').length;
    }
    assert.ok(keywordHits > 200, `results with a keyword match: ${keywordHits}`);
  });

  test('a failing length look-up falls back to the straightforward ranking instead of failing the search', () => {
    const failing = new Proxy(store, {
      get(target, prop) {
        if (prop === 'get') {
          return (sql: string, params?: unknown[]) => {
            if (sql.includes('memories_fts_docsize')) throw new Error('simulated read failure');
            return target.get(sql, params as never);
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const where = buildMemoryFilter(PROJECTS[0]!, {}, NOW);
    const terms = [`"${VOCAB[0]}"`, `"${VOCAB[20]}"`];
    const ranking = FullTextRanking.prepare(failing, terms, where)!;
    assertSameHits(ranking.topK(30), reference(joinFtsTerms(terms), where, 30), 'topK');
    const rids = ranking.topK(5).map((h) => h.rid);
    assert.deepEqual([...ranking.scores(rids).keys()].sort(), [...fullTextScores(store, joinFtsTerms(terms), where, rids).keys()].sort());
  });

  test('an all-common-word query, a query with no match and fewer matches than k', () => {
    const where = buildMemoryFilter(PROJECTS[0]!, {}, NOW);
    for (const terms of [VOCAB.slice(0, 3).map((w) => `"${w}"`), ['"nosuchwordanywhere"'], [`"${VOCAB[390]}"`, '"nosuchwordanywhere"']]) {
      const expr = joinFtsTerms(terms);
      for (const k of [1, 60, 5000])
        assertSameHits(FullTextRanking.prepare(store, terms, where)!.topK(k), reference(expr, where, k), `${expr} k ${k}`);
    }
  });

  test("'y' hits, %_stat and %_docsize read as matchinfo 'x', 'n', 'a' and 'l' report them", () => {
    const terms = ['"' + VOCAB[0] + '"', '"' + VOCAB[5] + '"', `"${VOCAB[1]!.slice(0, 3)}*"`];
    const expr = joinFtsTerms(terms);
    const rows = store.all<{ docid: number; y: Uint8Array; x: Uint8Array; size: Uint8Array }>(
      "SELECT docid, matchinfo(memories_fts, 'y') AS y, matchinfo(memories_fts, 'pcnalx') AS x, (SELECT size FROM memories_fts_docsize d WHERE d.docid = memories_fts.docid) AS size FROM memories_fts WHERE memories_fts MATCH ?",
      [expr],
    );
    assert.ok(rows.length > 100);
    const stat = store.get<{ value: Uint8Array }>('SELECT value FROM memories_fts_stat WHERE id = 0')!.value;
    // The row count, then one token total per column (title, content, tags, search_context).
    const totals = readVarints(stat, 1 + FTS_COLUMN_WEIGHTS.length)!;
    for (const row of rows) {
      const x = new Uint32Array(Uint8Array.from(row.x).buffer);
      const y = new Uint32Array(Uint8Array.from(row.y).buffer);
      const [p, c, n] = [x[0]!, x[1]!, x[2]!];
      assert.equal(n, totals[0]);
      for (let j = 0; j < c; j++) assert.equal(x[3 + j], Math.floor((totals[j + 1]! + Math.floor(n / 2)) / n), 'avg');
      assert.deepEqual(readVarints(row.size, c), [...x.slice(3 + c, 3 + 2 * c)], 'lengths');
      for (let i = 0; i < p * c; i++) assert.equal(y[i], x[3 + 2 * c + 3 * i], 'hits');
    }
  });

  test('parseRows refuses anything but matching docid and hex lists', () => {
    assert.equal(parseRows('', '', 2)?.rows, 0);
    const ok = parseRows('7,12', '0100000002000000' + '00000000FF000000', 2)!;
    assert.equal(ok.rows, 2);
    assert.deepEqual([...ok.docids], [7, 12]);
    assert.deepEqual([...ok.tf], [1, 2, 0, 255]);
    for (const [ids, hits] of [
      ['7', '01000000'],
      ['7,12', '0100000002000000'],
      ['7', '0100000002000000' + '0000000000000000'],
      ['x', '0100000002000000'],
      ['7,', '0100000002000000'],
      [',7', '0100000002000000'],
      ['7;', '0100000002000000'],
      ['7', '01000000020000zz'],
      ['7', '0100000002000000,'],
      ['', '0100000002000000'],
      ['12,7', '0100000002000000' + '0100000002000000'],
      ['7,7', '0100000002000000' + '0100000002000000'],
    ] as const) {
      assert.equal(parseRows(ids, hits, 2), null, `${ids} ${hits}`);
    }
  });

  test('readHexVarints reads multi-byte varints and refuses bad hex', () => {
    assert.deepEqual(readHexVarints('0A8101FF7F', 3), [10, 129, 16383]);
    assert.equal(readHexVarints('0A', 2), null);
    assert.equal(readHexVarints('0G', 1), null);
    assert.equal(readHexVarints('0', 1), null);
    assert.deepEqual(parseIntList('1,22,333'), [1, 22, 333]);
    for (const bad of ['1,,2', '1,', ',1', '-1', '1;2']) assert.throws(() => parseIntList(bad), bad);
  });

  test('liveMeta: the rids that pass the filter, also when an id contains its list separator', () => {
    const where = buildMemoryFilter(PROJECTS[0]!, {}, NOW);
    const rids = Array.from({ length: 300 }, (_, i) => i * 5 - 3);
    const want = new Map(
      store
        .all(
          `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at FROM memories m WHERE m.rid IN (${rids.join(',')}) AND ${where.sql}`,
          where.params,
        )
        .map((r) => [Number(r.rid), { id: String(r.id), createdAt: String(r.created_at) }]),
    );
    assert.ok(want.size > 100 && want.size < 300);
    assert.deepEqual(liveMeta(store, rids, where), want);
    store.transaction((tx) =>
      tx.run(
        "INSERT INTO memories (rid, id, project_id, title, content, normalized_content, content_hash, doc_hash, created_at, updated_at) VALUES (?, ?, ?, '', 'x', 'x', 'hx', 'hx', ?, ?)",
        [maxRid + 1000, 'odd\x1eid,with separators', PROJECTS[0]!, NOW.toISOString(), NOW.toISOString()],
      ),
    );
    want.set(maxRid + 1000, { id: 'odd\x1eid,with separators', createdAt: NOW.toISOString() });
    assert.deepEqual(liveMeta(store, [...rids, maxRid + 1000], where), want);
  });

  test('HYDRATE_COLUMNS hold everything rowToSummary reads', () => {
    const full = store.all('SELECT * FROM memories ORDER BY rid LIMIT 200');
    const narrow = store.all(`SELECT ${HYDRATE_COLUMNS} FROM memories ORDER BY rid LIMIT 200`);
    assert.equal(full.length, 200);
    assert.deepEqual(narrow.map(rowToSummary), full.map(rowToSummary));
  });

  test('SUMMARY_COLUMNS (content cut for the preview) give the same summaries, whatever the content', () => {
    const P = PREVIEW_CHARS;
    const contents = [
      '',
      'short',
      'a'.repeat(P - 1),
      'a'.repeat(P),
      'a'.repeat(P + 1),
      'a'.repeat(P + 2),
      'b'.repeat(5000),
      '😀'.repeat(P), // astral: 2 UTF-16 units per code point
      'x'.repeat(P - 1) + '😀' + 'y'.repeat(10), // the cut falls inside a surrogate pair
      'x'.repeat(P - 3) + '👩‍👩‍👧‍👦' + 'y'.repeat(10), // inside an emoji sequence (11 units)
      'x'.repeat(P - 2) + 'e\u0301'.repeat(30), // before a combining accent
      '👩‍👩‍👧‍👦'.repeat(P), // sequences all the way
      '😀'.repeat(Math.floor(P / 2)),
      '😀'.repeat(Math.floor(P / 2)) + 'z',
      'é漢字'.repeat(P),
      'line\nbreaks\tand "quotes" ' + 'ü'.repeat(P),
    ];
    const base = 9_000_000;
    store.transaction((tx) => {
      contents.forEach((c, i) =>
        tx.run(
          "INSERT INTO memories (rid, id, project_id, title, content, normalized_content, content_hash, doc_hash, created_at, updated_at) VALUES (?, ?, ?, 't', ?, ?, ?, ?, ?, ?)",
          [base + i, `preview-${i}`, PROJECTS[0]!, c, c, `hp${i}`, `hp${i}`, NOW.toISOString(), NOW.toISOString()],
        ),
      );
    });
    const full = store.all('SELECT * FROM memories WHERE rid >= ? ORDER BY rid', [base]);
    const narrow = store.all(`SELECT ${SUMMARY_COLUMNS} FROM memories WHERE rid >= ? ORDER BY rid`, [base]);
    assert.equal(full.length, contents.length);
    assert.deepEqual(narrow.map(rowToSummary), full.map(rowToSummary));
    // And over the corpus rows.
    assert.deepEqual(
      store.all(`SELECT ${SUMMARY_COLUMNS} FROM memories ORDER BY rid LIMIT 200`).map(rowToSummary),
      store.all('SELECT * FROM memories ORDER BY rid LIMIT 200').map(rowToSummary),
    );
    store.transaction((tx) => tx.run('DELETE FROM memories WHERE rid >= ?', [base]));
  });
});
