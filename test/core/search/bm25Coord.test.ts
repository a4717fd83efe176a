/**
 * The coordination factor of bm25.ts: score × (matched query phrases / query phrases)^coord.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import initSqlJs from 'sql.js';
import { BM25_COORD, bm25Relevance, registerBm25 } from '../../../src/core/search/bm25';

test('coord scales by the share of query terms a row matches; 0 is plain BM25; one-term queries are unchanged', async () => {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  registerBm25(db);
  db.run('CREATE VIRTUAL TABLE t USING fts4(body)');
  for (const body of ['apple banana cherry', 'apple kiwi lemon', 'grape melon peach', 'apple banana fig'])
    db.run('INSERT INTO t VALUES (?)', [body]);
  const blob = (q: string, rowid: number) =>
    db.exec(`SELECT matchinfo(t, 'pcnalx') FROM t WHERE t MATCH ? AND rowid = ?`, [q, rowid])[0]!.values[0]![0] as Uint8Array;

  const three = '"apple" OR "banana" OR "cherry"';
  // Row 2 matches 1 of 3 terms, row 1 all 3.
  for (const rowid of [1, 2]) {
    const plain = bm25Relevance(blob(three, rowid), [], { coord: 0 });
    const share = rowid === 1 ? 1 : 1 / 3;
    assert.ok(plain > 0);
    assert.ok(Math.abs(bm25Relevance(blob(three, rowid), [], { coord: 1 }) - plain * share) < 1e-12);
    assert.ok(Math.abs(bm25Relevance(blob(three, rowid), [], { coord: 2 }) - plain * share * share) < 1e-12);
  }
  // Default is BM25_COORD, and the SQL function applies it (negated score).
  assert.equal(BM25_COORD, 1);
  const sql = db.exec(`SELECT bm25(matchinfo(t, 'pcnalx')) FROM t WHERE t MATCH ? AND rowid = 2`, [three])[0]!.values[0]![0] as number;
  assert.ok(Math.abs(-sql - bm25Relevance(blob(three, 2), [], { coord: 0 }) / 3) < 1e-12);
  // A single-term query: nothing to coordinate.
  assert.equal(bm25Relevance(blob('"apple"', 2), [], { coord: 1 }), bm25Relevance(blob('"apple"', 2), [], { coord: 0 }));
  // Ranking effect: matching two of the terms beats one frequent rare-term hit.
  const order = db
    .exec(`SELECT rowid FROM t WHERE t MATCH '"banana" OR "fig" OR "kiwi"' ORDER BY bm25(matchinfo(t, 'pcnalx')), rowid`)[0]!
    .values.map((r) => r[0]);
  assert.equal(order[0], 4, `row 4 matches banana and fig: ${JSON.stringify(order)}`);
  db.close();
});
