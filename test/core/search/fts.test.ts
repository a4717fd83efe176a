import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { STOP_WORDS, FTS_MAX_TERMS, buildFtsQuery, parseFtsTerms } from '../../../src/core/search/ftsQuery';
import { BM25_B, BM25_K1, bm25Relevance, parseMatchinfoPcnalx, registerBm25 } from '../../../src/core/search/bm25';

let SQL: SqlJsStatic;
before(async () => {
  SQL = await initSqlJs();
});

const DOCS: Array<[title: string, content: string, tags: string]> = [
  ['Auth setup', 'Authentication uses JWT tokens issued by the auth server.', 'security auth'],
  ['Editor style', 'Use tabs not spaces in TypeScript files.', 'style'],
  ['Theme', 'The user prefers dark mode in every editor.', 'ui preference'],
  ['Theme order', 'Mode switching: dark themes load after the light ones.', 'ui'],
  ['Runner', 'The test runner is running the suites in parallel; it runs fast.', 'test'],
  ['Café', 'Le café est servi à 9h. naïve façade — 東京 🎉', 'i18n'],
  ['Ports', 'The dev server listens on port 8080, NEAR the proxy (AND/OR) - *', 'dev'],
];

function makeDb(tokenizer: string): Database {
  const db = new SQL.Database();
  registerBm25(db);
  db.run(`CREATE VIRTUAL TABLE docs USING fts4(title, content, tags, tokenize=${tokenizer})`);
  for (const d of DOCS) db.run('INSERT INTO docs (title, content, tags) VALUES (?, ?, ?)', d);
  return db;
}

function matchIds(db: Database, query: string): number[] {
  const r = db.exec(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(matchinfo(docs, 'pcnalx')), rowid`, [query]);
  return (r[0]?.values ?? []).map((row) => row[0] as number);
}

// Every expression the builder emits must have this shape: quoted phrases of letter/digit words,
// an optional star inside the quotes, joined by spaces or OR (underscores are word characters: porter keeps them).
const SAFE_SHAPE = /^"[\p{L}\p{N}\p{M}_]+(?: [\p{L}\p{N}\p{M}_]+)*\*?"(?:(?: | OR )"[\p{L}\p{N}\p{M}_]+(?: [\p{L}\p{N}\p{M}_]+)*\*?")*$/u;

const NASTY: string[] = [
  '',
  ' ',
  '\t\n  \r',
  '"',
  '""',
  '"""',
  "'",
  "''",
  '"unbalanced',
  'unbalanced"',
  'a "b" "c',
  '(',
  ')',
  '((',
  '())',
  '(auth OR',
  'auth)',
  'AND',
  'OR',
  'NOT',
  'NEAR',
  'auth AND',
  'OR auth',
  'NOT auth',
  'auth NOT',
  'auth NEAR/3 jwt',
  'NEAR/3',
  'auth NEAR/ jwt',
  '-auth',
  '- -',
  '--',
  'auth -jwt',
  '*',
  '**',
  'auth*',
  '*auth',
  'au*th',
  'a*',
  '^auth',
  '^',
  ':',
  'title:auth',
  'title:',
  ':auth',
  'docs:jwt',
  'content:"dark mode"',
  'x:y:z',
  '{title content}:dark',
  'café naïve façade',
  '東京',
  'Привет мир',
  'مرحبا بالعالم',
  '🎉',
  '🎉🎉 dark 🎉',
  '👨‍👩‍👧‍👦',
  '\u0000',
  '\u200b\u200b',
  'e\u0301te\u0301',
  "'; DROP TABLE docs; --",
  "1' OR '1'='1",
  'Robert"); DROP TABLE docs;--',
  '%',
  '_',
  '\\',
  '\\"',
  'what is the',
  'the and or not',
  'a'.repeat(10_000),
  'word '.repeat(2_000),
  '"'.repeat(10_000),
  '('.repeat(10_000),
  'dark '.repeat(5_000) + '"',
  Array.from({ length: 10_000 }, (_, i) => String.fromCodePoint(0x4e00 + (i % 500))).join(''),
  Array.from({ length: 3_000 }, (_, i) => `w${i}`).join(' '),
  '“dark mode”',
  '«dark»',
  'dark\u3000mode',
  'auth* "dark mode" -x (y)',
];

describe('buildFtsQuery', () => {
  test(`the nasty-input list is long enough (${NASTY.length})`, () => {
    assert.ok(NASTY.length >= 40);
  });

  for (const tokenizer of ['porter', 'unicode61', 'simple']) {
    test(`no input makes FTS4 (${tokenizer}) raise, in either mode, with bm25 ranking`, () => {
      const db = makeDb(tokenizer);
      for (const input of NASTY) {
        for (const [mode, pairs] of [
          ['any', false],
          ['all', false],
          ['any', true],
        ] as const) {
          const q = buildFtsQuery(input, { mode, pairs });
          if (q === null) continue;
          assert.match(q, SAFE_SHAPE, `unsafe shape for ${JSON.stringify(input.slice(0, 40))}: ${q.slice(0, 80)}`);
          assert.doesNotThrow(
            () => db.exec(`SELECT rowid, bm25(matchinfo(docs, 'pcnalx'), 2, 1, 0.5) FROM docs WHERE docs MATCH ? ORDER BY 2`, [q]),
            `input ${JSON.stringify(input.slice(0, 40))} -> ${q.slice(0, 80)}`,
          );
        }
      }
      // The injection attempts were bound as data, and the table is intact.
      assert.equal(db.exec('SELECT count(*) FROM docs')[0]!.values[0]![0], DOCS.length);
      db.close();
    });
  }

  test('the same inputs passed raw DO break FTS4 (the builder is what makes them safe)', () => {
    const db = makeDb('porter');
    let raised = 0;
    for (const input of ['"unbalanced', '(auth OR', 'NOT', 'auth NEAR/ jwt)', '"""']) {
      try {
        db.exec('SELECT rowid FROM docs WHERE docs MATCH ?', [input]);
      } catch {
        raised++;
      }
    }
    assert.ok(raised >= 3, `only ${raised} raw inputs raised`);
    db.close();
  });

  test('empty, whitespace, punctuation-only and emoji-only input means no full-text leg', () => {
    for (const input of ['', '   ', '"', '()', '- * ^ :', '🎉🎉', '\u200b', '"  "', 'a'.repeat(10_000)]) {
      assert.equal(buildFtsQuery(input), null, JSON.stringify(input.slice(0, 20)));
    }
  });

  test('words become quoted phrases joined by OR (any) or juxtaposed (all)', () => {
    assert.equal(buildFtsQuery('JWT auth server'), '"jwt" OR "auth" OR "server"');
    assert.equal(buildFtsQuery('JWT auth server', { mode: 'all' }), '"jwt" "auth" "server"');
  });

  test('operators, column filters and punctuation are neutralized into words', () => {
    assert.equal(
      buildFtsQuery('title:auth NOT jwt NEAR/3 (server) -token ^x'),
      '"title" OR "auth" OR "jwt" OR "near" OR "3" OR "server" OR "token" OR "x"',
    );
    assert.equal(buildFtsQuery('OR AND'), '"or" OR "and"'); // only stop-words: kept, lowercased, harmless inside quotes
  });

  test('prefix queries put the star inside the quotes (FTS4 syntax)', () => {
    assert.equal(buildFtsQuery('auth* token'), '"auth*" OR "token"');
    assert.deepEqual(parseFtsTerms('auth* a* *x'), [
      { kind: 'prefix', text: 'auth' },
      { kind: 'word', text: 'a' },
      { kind: 'word', text: 'x' },
    ]);
    assert.equal(buildFtsQuery('a*'), '"a"'); // too short for a prefix scan; a lone stop-word is still searched
    assert.equal(buildFtsQuery('th*', { minPrefixLength: 3 }), '"th"');
  });

  test('explicit quoted phrases are kept whole, stop-words and all', () => {
    assert.equal(buildFtsQuery('"The Dark Mode" editor'), '"the dark mode" OR "editor"');
    assert.equal(buildFtsQuery('“dark mode” theme', { mode: 'all' }), '"dark mode" "theme"');
    assert.equal(buildFtsQuery('"the" editor'), '"the" OR "editor"'); // quoted: not a stop-word removal target
    // Unbalanced last quote: the rest is plain words.
    assert.equal(buildFtsQuery('"dark mode" "the editor'), '"dark mode" OR "editor"');
  });

  test('stop-words are dropped unless nothing would be left', () => {
    assert.ok(STOP_WORDS.has('the') && STOP_WORDS.has('what') && STOP_WORDS.has('is'));
    assert.ok(STOP_WORDS.size >= 100 && STOP_WORDS.size <= 200);
    assert.equal(buildFtsQuery('What is the auth flow?'), '"auth" OR "flow"');
    assert.equal(buildFtsQuery('what is it'), '"what" OR "is" OR "it"');
    assert.equal(buildFtsQuery('What is the auth flow?', { stopWords: false }), '"what" OR "is" OR "the" OR "auth" OR "flow"');
  });

  test('duplicates are removed and the number of terms is capped', () => {
    assert.equal(buildFtsQuery('Dark dark DARK mode'), '"dark" OR "mode"');
    const many = Array.from({ length: 100 }, (_, i) => `term${i}`).join(' ');
    assert.equal(buildFtsQuery(many)!.split(' OR ').length, FTS_MAX_TERMS);
    assert.equal(buildFtsQuery(many, { maxTerms: 5 }), '"term0" OR "term1" OR "term2" OR "term3" OR "term4"');
  });

  test('pairs: adjacent non-stop words also become phrases, after the single terms, within the cap', () => {
    assert.equal(
      buildFtsQuery('the LGBTQ support group meets', { pairs: true }),
      '"lgbtq" OR "support" OR "group" OR "meets" OR "lgbtq support" OR "support group" OR "group meets"',
    );
    // No pair across a stop-word or a quoted phrase; prefixes stay single.
    assert.equal(buildFtsQuery('support of group "dark mode" auth*', { pairs: true }), '"support" OR "group" OR "dark mode" OR "auth*"');
    assert.equal(buildFtsQuery('support group', { pairs: false }), '"support" OR "group"');
    assert.equal(buildFtsQuery('support group', { pairs: true, mode: 'all' }), '"support" "group"');
    assert.equal(buildFtsQuery('a b c d e f', { pairs: true, maxTerms: 3, stopWords: false }), '"a" OR "b" OR "c"');
    const db = makeDb('porter');
    const ids = (q: string) =>
      (db.exec(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(matchinfo(docs, 'pcnalx')), rowid`, [q])[0]?.values ?? []).map(
        (r) => r[0],
      );
    // "dark mode" adjacent (row 3) outranks dark … mode apart (row 4) once the pair is a term.
    assert.equal(ids(buildFtsQuery('dark mode', { pairs: true })!)[0], 3);
    db.close();
  });

  test('underscores are part of a word, as the porter index reads them', () => {
    assert.deepEqual(parseFtsTerms('ERR_REQUIRE_ESM _private snake_case_ ___'), [
      { kind: 'word', text: 'err_require_esm' },
      { kind: 'word', text: '_private' },
      { kind: 'word', text: 'snake_case_' },
    ]);
    const db = makeDb('porter');
    db.run('INSERT INTO docs (title, content, tags) VALUES (?, ?, ?)', ['', 'Node crashed with ERR_REQUIRE_ESM on start.', '']);
    const id = Number(db.exec('SELECT max(rowid) FROM docs')[0]!.values[0]![0]);
    assert.deepEqual(matchIds(db, buildFtsQuery('ERR_REQUIRE_ESM')!), [id]);
    db.close();
  });

  test('unicode words survive, case-folded', () => {
    assert.equal(buildFtsQuery('CAFÉ naïve 東京 e\u0301'), '"café" OR "naïve" OR "東京" OR "e\u0301"');
  });
});

describe('FTS4 matching through the builder', () => {
  test('prefix matching: authentic* finds "Authentication", the plain word does not', () => {
    const db = makeDb('unicode61'); // no stemmer, so only the prefix can reach the longer word
    assert.deepEqual(matchIds(db, buildFtsQuery('authentic*')!), [1]);
    assert.deepEqual(matchIds(db, buildFtsQuery('authentic')!), []);
    assert.deepEqual(matchIds(db, buildFtsQuery('Authentic* nothing-else')!), [1]);
    db.close();
    const porter = makeDb('porter');
    assert.deepEqual(matchIds(porter, buildFtsQuery('tab*')!), [2]);
    assert.deepEqual(matchIds(porter, buildFtsQuery('ta')!), []);
    porter.close();
  });

  test('phrase matching respects word order and adjacency', () => {
    const db = makeDb('porter');
    assert.deepEqual(matchIds(db, buildFtsQuery('"dark mode"')!), [3]);
    assert.deepEqual(matchIds(db, buildFtsQuery('"mode dark"')!), []);
    // Unquoted, both docs with "dark" and "mode" match in 'all' mode.
    assert.deepEqual(matchIds(db, buildFtsQuery('dark mode', { mode: 'all' })!).sort(), [3, 4]);
    db.close();
  });

  test('porter stemming applies inside quoted terms', () => {
    const db = makeDb('porter');
    assert.deepEqual(matchIds(db, buildFtsQuery('runs')!), [5]);
    assert.deepEqual(matchIds(db, buildFtsQuery('preferring')!), [3]);
    db.close();
  });

  test("'any' finds the union, 'all' the intersection", () => {
    const db = makeDb('porter');
    assert.deepEqual(matchIds(db, buildFtsQuery('jwt tabs')!).sort(), [1, 2]);
    assert.deepEqual(matchIds(db, buildFtsQuery('jwt tabs', { mode: 'all' })!), []);
    db.close();
  });
});

describe('bm25 over matchinfo(pcnalx)', () => {
  test('matchinfo pcnalx layout is parsed as documented', () => {
    const db = new SQL.Database();
    db.run('CREATE VIRTUAL TABLE t USING fts4(a, b)');
    db.run("INSERT INTO t VALUES ('x y', 'x x z w')");
    db.run("INSERT INTO t VALUES ('y', 'z')");
    const blob = db.exec(`SELECT matchinfo(t, 'pcnalx') FROM t WHERE t MATCH '"x" OR "z"' AND rowid = 1`)[0]!.values[0]![0] as Uint8Array;
    const m = parseMatchinfoPcnalx(blob);
    assert.equal(m.phraseCount, 2);
    assert.equal(m.columnCount, 2);
    assert.equal(m.rowCount, 2);
    assert.deepEqual(m.avgLength, [2, 3]); // (2+1)/2 rounds to 2; (4+1)/2 rounds to 3
    assert.deepEqual(m.length, [2, 4]);
    assert.deepEqual(m.hits, [
      [
        { hitsThisRow: 1, hitsAllRows: 1, rowsWithHits: 1 },
        { hitsThisRow: 2, hitsAllRows: 2, rowsWithHits: 1 },
      ],
      [
        { hitsThisRow: 0, hitsAllRows: 0, rowsWithHits: 0 },
        { hitsThisRow: 1, hitsAllRows: 2, rowsWithHits: 2 },
      ],
    ]);
    assert.throws(() => parseMatchinfoPcnalx(new Uint8Array(10)), /not 'pcnalx'/);
    assert.throws(() => parseMatchinfoPcnalx(new Uint8Array(16)), /needs/);
    db.close();
  });

  test('matches a hand computation on a tiny corpus (k1=1.2, b=0.75)', () => {
    // The product defaults (b 0.4 by measurement, see bm25.ts); this computation pins b 0.75.
    assert.equal(BM25_K1, 1.2);
    assert.equal(BM25_B, 0.4);
    const db = new SQL.Database();
    // coord 0: plain BM25 (the coordination factor has its own test in search-bm25-coord.test.ts).
    registerBm25(db, { k1: 1.2, b: 0.75, coord: 0 });
    db.run('CREATE VIRTUAL TABLE t USING fts4(body)');
    // Lengths 3, 2, 4, 3: N = 4, average length exactly 3.
    for (const body of ['apple banana apple', 'banana cherry', 'cherry date elder fig', 'grape fig kiwi'])
      db.run('INSERT INTO t VALUES (?)', [body]);
    const rows = db.exec(`SELECT rowid, bm25(matchinfo(t, 'pcnalx')) FROM t WHERE t MATCH '"apple" OR "fig"' ORDER BY 2`)[0]!.values;

    const k1 = 1.2;
    const b = 0.75;
    const idf = (df: number) => Math.log(1 + (4 - df + 0.5) / (df + 0.5));
    const part = (tf: number, len: number) => (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / 3));
    // apple: df 1 (row 1, tf 2, len 3). fig: df 2 (row 3 len 4, row 4 len 3, tf 1 each).
    const s1 = idf(1) * part(2, 3); // = ln(1 + 3.5/1.5) · 2.2·2/(2+1.2) = 1.2039728 · 1.375
    const s3 = idf(2) * part(1, 4); // = ln(2) · 2.2/(1+1.2·1.25)
    const s4 = idf(2) * part(1, 3); // = ln(2) · 2.2/2.2
    assert.ok(Math.abs(s1 - 1.6554626) < 1e-6);
    assert.ok(Math.abs(s4 - Math.LN2) < 1e-12);

    assert.deepEqual(
      rows.map((r) => r[0]),
      [1, 4, 3],
    );
    const got = new Map(rows.map((r) => [r[0] as number, r[1] as number]));
    assert.ok(Math.abs(got.get(1)! - -s1) < 1e-12, `row 1: ${got.get(1)} vs ${-s1}`);
    assert.ok(Math.abs(got.get(3)! - -s3) < 1e-12, `row 3: ${got.get(3)} vs ${-s3}`);
    assert.ok(Math.abs(got.get(4)! - -s4) < 1e-12, `row 4: ${got.get(4)} vs ${-s4}`);

    // The JS helper returns the same magnitude, positive.
    const blob = db.exec(`SELECT matchinfo(t, 'pcnalx') FROM t WHERE t MATCH '"apple" OR "fig"' AND rowid = 1`)[0]!
      .values[0]![0] as Uint8Array;
    assert.ok(Math.abs(bm25Relevance(blob, [], { b: 0.75, coord: 0 }) - s1) < 1e-12);
    assert.ok(Math.abs(bm25Relevance(blob, [], { k1: 2, b: 0, coord: 0 }) - idf(1) * ((2 * 3) / (2 + 2))) < 1e-12);
    db.close();
  });

  test('per-column weights are summed per column, zero ignores a column', () => {
    const db = new SQL.Database();
    registerBm25(db);
    db.run('CREATE VIRTUAL TABLE t USING fts4(title, body)');
    db.run("INSERT INTO t VALUES ('deploy', 'notes about many things here')"); // hit in title
    db.run("INSERT INTO t VALUES ('notes', 'how to deploy the thing safely')"); // hit in body
    db.run("INSERT INTO t VALUES ('misc', 'nothing relevant at all here')");
    const order = (sql: string) => db.exec(sql)[0]!.values.map((r) => r[0]);
    const q = `FROM t WHERE t MATCH '"deploy"' ORDER BY 2, rowid`;
    assert.deepEqual(order(`SELECT rowid, bm25(matchinfo(t, 'pcnalx'), 5, 1) ${q}`), [1, 2]);
    assert.deepEqual(order(`SELECT rowid, bm25(matchinfo(t, 'pcnalx'), 0.1, 1) ${q}`), [2, 1]);
    const zero = db.exec(`SELECT bm25(matchinfo(t, 'pcnalx'), 0, 1) FROM t WHERE t MATCH '"deploy"' AND rowid = 1`)[0]!.values[0]![0];
    assert.equal(zero, 0);
    // Weighted score = weight × unweighted score for a single-column hit.
    const [w1, w3] = db.exec(
      `SELECT bm25(matchinfo(t, 'pcnalx')), bm25(matchinfo(t, 'pcnalx'), 3, 1) FROM t WHERE t MATCH '"deploy"' AND rowid = 1`,
    )[0]!.values[0]! as number[];
    assert.ok(Math.abs(w3! - 3 * w1!) < 1e-12);
    db.close();
  });

  test('sign: negative is better, so ORDER BY bm25 ascending puts the best first', () => {
    const db = makeDb('porter');
    const rows = db.exec(`SELECT rowid, bm25(matchinfo(docs, 'pcnalx')) AS s FROM docs WHERE docs MATCH ? ORDER BY s`, [
      buildFtsQuery('dark mode editor')!,
    ])[0]!.values;
    assert.ok(rows.length >= 2);
    for (const [, s] of rows) assert.ok((s as number) < 0);
    assert.equal(rows[0]![0], 3); // the only doc with all three words
    db.close();
  });

  test('more query-term hits rank first', () => {
    const db = new SQL.Database();
    registerBm25(db);
    db.run('CREATE VIRTUAL TABLE t USING fts4(title, content, tags, tokenize=porter)');
    db.run("INSERT INTO t VALUES ('a', 'jwt token refresh cycle details', '')");
    db.run("INSERT INTO t VALUES ('b', 'jwt jwt jwt token rotation', '')");
    db.run("INSERT INTO t VALUES ('c', 'unrelated text about the weather', '')");
    const ids = db
      .exec(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(matchinfo(t, 'pcnalx'))`, [buildFtsQuery('jwt')!])[0]!
      .values.map((r) => r[0]);
    assert.deepEqual(ids, [2, 1]);
    db.close();
  });

  test('rarer terms weigh more (idf)', () => {
    const db = new SQL.Database();
    registerBm25(db);
    db.run('CREATE VIRTUAL TABLE t USING fts4(title, content, tags, tokenize=porter)');
    db.run("INSERT INTO t VALUES ('', 'config loader reads yaml', '')"); // 1: common term only
    db.run("INSERT INTO t VALUES ('', 'config loader reads zstd', '')"); // 2: rare term only
    for (let i = 0; i < 8; i++) db.run("INSERT INTO t VALUES ('', 'yaml yaml settings file ' || ?, '')", [`n${i}`]);
    const ids = db
      .exec(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(matchinfo(t, 'pcnalx')) LIMIT 2`, [
        buildFtsQuery('yaml zstd loader', { mode: 'any' })!,
      ])[0]!
      .values.map((r) => r[0]);
    assert.deepEqual(ids, [2, 1]);
    db.close();
  });

  test('shorter documents win at equal term frequency (length normalization)', () => {
    const db = new SQL.Database();
    registerBm25(db);
    db.run('CREATE VIRTUAL TABLE t USING fts4(body)');
    db.run("INSERT INTO t VALUES ('sqlite notes with many many other unrelated words in it')");
    db.run("INSERT INTO t VALUES ('sqlite notes')");
    const ids = db.exec(`SELECT rowid FROM t WHERE t MATCH '"sqlite"' ORDER BY bm25(matchinfo(t, 'pcnalx'))`)[0]!.values.map((r) => r[0]);
    assert.deepEqual(ids, [2, 1]);
    db.close();
  });

  test('registered variadic: 0..n weights accepted; bad arguments raise SQL errors', () => {
    const db = makeDb('porter');
    const q = buildFtsQuery('dark')!;
    for (const args of ['', ', 1', ', 1, 2', ', 1, 2, 3', ', 1, 2, 3, 4']) {
      assert.doesNotThrow(() => db.exec(`SELECT bm25(matchinfo(docs, 'pcnalx')${args}) FROM docs WHERE docs MATCH ?`, [q]));
    }
    assert.throws(() => db.exec(`SELECT bm25('not a blob') FROM docs WHERE docs MATCH ?`, [q]), /first argument must be matchinfo/);
    assert.throws(
      () => db.exec(`SELECT bm25(matchinfo(docs, 'pcnalx'), 'abc') FROM docs WHERE docs MATCH ?`, [q]),
      /weight 1 is not a number/,
    );
    assert.throws(() => db.exec(`SELECT bm25(matchinfo(docs, 'pcx')) FROM docs WHERE docs MATCH ?`, [q]), /pcnalx/);
    assert.equal(db.exec('SELECT bm25(NULL)')[0]!.values[0]![0], 0);
    db.close();
  });
});
