/**
 * The stored vector formats (src/core/vectorstore/blob.ts): int8 with a per-vector scale is
 * written, float32 rows of older versions are still read. Quantization error on cosine is
 * bounded; a store holding both kinds of rows searches, rebuilds and reopens consistently; an
 * HNSW index rebuilt from compact rows still finds the true (float32) neighbours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, exactNeighbours, sampleTexts } from '../../fixtures/writePath';
import { cosine } from '../../../src/core/embed/vector';
import {
  blobFormat,
  blobLength,
  blobToVector,
  cosineWithBlob,
  vectorToBlob,
  vectorToFloat32Blob,
} from '../../../src/core/vectorstore/blob';
import { liveVectorCount } from '../../../src/core/vectorstore/changes';
import { VectorStore, withHeadroom } from '../../../src/core/vectorstore/vectorStore';
import { Store } from '../../../src/core/store/store';
import { ExactIndex } from '../../../src/core/vector/exactIndex';
import { recallAtK } from '../../../src/core/vector/recall';
import { clusteredVectors, gaussian, rng } from '../vector/data';

/** Stated tolerance: |cosine(q, stored) − cosine(q, original)| for 512-d embeddings-like vectors. */
const COSINE_TOLERANCE = 0.002;

test('int8 blobs: dim + 4 bytes, each component within half a step of the original', () => {
  const g = gaussian(rng(3));
  for (const dim of [1, 3, 384, 512, 768]) {
    const v = Float32Array.from({ length: dim }, () => g());
    const blob = vectorToBlob(v);
    assert.equal(blob.byteLength, blobLength(dim, 'int8'));
    assert.equal(blobFormat(blob, dim), 'int8');
    const back = blobToVector(blob, dim)!;
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const step = max / 127;
    for (let i = 0; i < dim; i++)
      assert.ok(Math.abs(back[i]! - v[i]!) <= step / 2 + 1e-7 * max, `dim ${dim} component ${i}: ${back[i]} vs ${v[i]}`);
    // The largest component is exact up to float32 rounding.
    const iMax = v.findIndex((x) => Math.abs(x) === max);
    assert.ok(Math.abs(back[iMax]! - v[iMax]!) <= 1e-6 * max);
  }
});

test('float32 blobs of older versions read back bit for bit; lengths that fit neither format are refused', () => {
  const v = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i) / 7);
  const old = vectorToFloat32Blob(v);
  assert.equal(old.byteLength, 2048);
  assert.equal(blobFormat(old, 512), 'float32');
  assert.deepEqual(Array.from(blobToVector(old, 512)!), Array.from(v));
  // An unaligned view (sql.js may return one) too.
  const shifted = new Uint8Array(old.length + 3);
  shifted.set(old, 3);
  assert.deepEqual(Array.from(blobToVector(shifted.subarray(3), 512)!), Array.from(v));
  assert.equal(blobToVector(old, 511), undefined);
  assert.equal(blobToVector(new Uint8Array(100), 512), undefined);
  assert.equal(blobToVector('text', 4), undefined);
  assert.equal(blobFormat(vectorToBlob(v), 256), undefined);
});

test('zero and non-finite vectors stay unusable after quantization', () => {
  const zero = blobToVector(vectorToBlob(new Float32Array(8)), 8)!;
  assert.ok(zero.every((x) => x === 0));
  const nan = blobToVector(vectorToBlob(Float32Array.from([1, NaN, 0, 0])), 4)!;
  assert.ok(nan.every((x) => Number.isNaN(x)));
  const inf = blobToVector(vectorToBlob(Float32Array.from([1, -Infinity, 0, 0])), 4)!;
  assert.ok(inf.every((x) => Number.isNaN(x)));
});

test(`cosine against int8 rows is within ${COSINE_TOLERANCE} of the float32 original (clustered and isotropic 512-d)`, () => {
  const { vectors, queries } = clusteredVectors({ n: 1000, dim: 512, clusters: 20, queries: 50, seed: 9 });
  const g = gaussian(rng(5));
  const iso = Array.from({ length: 300 }, () => Float32Array.from({ length: 512 }, () => g()));
  let worst = 0;
  let sum = 0;
  let n = 0;
  for (const q of queries) {
    const qn = Math.sqrt(q.reduce((s, x) => s + x * x, 0));
    for (const v of [...vectors.slice(0, 200), ...iso.slice(0, 60)]) {
      const blob = vectorToBlob(v);
      const err = Math.abs(cosineWithBlob(q, qn, blob, 512)! - cosine(q, v));
      // Scoring the codes directly equals the cosine of the dequantized vector.
      assert.ok(Math.abs(cosineWithBlob(q, qn, blob, 512)! - cosine(q, blobToVector(blob, 512)!)) < 1e-5);
      worst = Math.max(worst, err);
      sum += err;
      n++;
    }
  }
  assert.ok(worst < COSINE_TOLERANCE, `worst cosine error ${worst}`);
  assert.ok(sum / n < COSINE_TOLERANCE / 4, `mean cosine error ${sum / n}`);
});

test('HNSW rebuilt from int8 rows: recall@10 against exact search over the float32 originals ≥ 0.98', async () => {
  const dim = 128;
  const { vectors, queries } = clusteredVectors({ n: 3000, dim, clusters: 30, queries: 100, seed: 21 });
  const dir = tmpDir('am-vblob-');
  const store = await Store.open({ dir });
  const space = 'test-q8-128';
  try {
    store.transaction((tx) => {
      vectors.forEach((v, i) => {
        tx.run(
          "INSERT INTO memories (rid, id, project_id, type, title, content, normalized_content, content_hash, doc_hash, tags, importance, created_at, updated_at, embedding_hash) VALUES (?, ?, 'p', 'note', '', ?, ?, ?, ?, '[]', 0.5, '2026-01-01', '2026-01-01', ?)",
          [i + 1, `id-${i}`, `text ${i}`, `text ${i}`, `h${i}`, `h${i}`, `v${i}`],
        );
        tx.run("INSERT INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, '2026-01-01')", [
          space,
          `v${i}`,
          dim,
          vectorToBlob(v),
        ]);
      });
    });
    const truth = new ExactIndex({ dim, initialCapacity: vectors.length });
    vectors.forEach((v, i) => truth.add(i + 1, v));
    const vs = await VectorStore.open({ store, space, dimension: dim });
    try {
      assert.equal(vs.stats().openedFrom, 'rebuild');
      await vs.whenReady();
      assert.equal(vs.state, 'ready');
      assert.equal(vs.size, 3000);
      assert.equal(vs.stats().capacity, withHeadroom(3000), 'free slots for the next memories');
      const ann = queries.map((q) => vs.search(q, 10).map((h) => h.rid));
      const exact = queries.map((q) => truth.search(q, 10));
      const recall = recallAtK(ann, exact);
      assert.ok(recall >= 0.98, `recall@10 ${recall}`);
    } finally {
      await vs.close({ save: false });
    }
  } finally {
    await store.close({ snapshot: false });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a store with float32 rows of an older version and new int8 rows: counted, searched, saved and reopened from the file', async () => {
  const dir = tmpDir('am-vblob-');
  const w = await openWritePath({ dir });
  const space = w.embedder.space;
  const dim = w.embedder.dimension;
  const rids: number[] = [];
  try {
    for (const t of sampleTexts(16, 4)) {
      const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
      if (r.result.status === 'created') rids.push(r.result.memory.rid);
    }
    assert.equal(rids.length, 16);
    // Half the rows rewritten as an older version stored them: float32 of the exact embedding.
    const rows = w.store.all<{ text_hash: string; content: string; title: string }>(
      'SELECT e.text_hash AS text_hash, m.content AS content, m.title AS title FROM memories m JOIN embeddings e ON e.text_hash = m.embedding_hash ORDER BY m.rid LIMIT 8',
    );
    const texts = rows.map((r) => (r.title ? `${r.title}\n\n${r.content}` : r.content));
    const originals = await w.embedder.embed(texts, 'document');
    w.store.transaction((tx) =>
      rows.forEach((r, i) =>
        tx.run('UPDATE embeddings SET vector = ? WHERE space = ? AND text_hash = ?', [
          vectorToFloat32Blob(originals[i]!),
          space,
          r.text_hash,
        ]),
      ),
    );
    const formats = w.store.all<{ n: number; len: number }>(
      'SELECT count(*) AS n, length(vector) AS len FROM embeddings GROUP BY len ORDER BY len',
    );
    assert.deepEqual(
      formats.map((f) => [Number(f.len), Number(f.n)]),
      [
        [dim + 4, 8],
        [dim * 4, 8],
      ],
    );
    assert.equal(liveVectorCount(w.store, { space, dim }), 16);
    await w.vectors.whenReady();
    await w.vectors.close({ save: true });
    assert.ok(fs.existsSync(w.vectors.file));
    fs.rmSync(w.vectors.file);

    // Rebuilt from both kinds of rows, then saved; the next open loads the file (counts agree).
    const q = (await w.embedder.embed(['scheduler batches queries under load'], 'query'))[0]!;
    const vs = await VectorStore.open({ store: w.store, space, dimension: dim });
    await vs.whenReady();
    assert.equal(vs.size, 16);
    assert.deepEqual(
      vs.search(q, 5).map((h) => h.rid),
      exactNeighbours(w.store, space, dim, q, 5).map((h) => h.rid),
    );
    const sims = vs.similarities(q, rids);
    assert.equal(sims.size, 16);
    for (const rid of rids) assert.ok(Math.abs(sims.get(rid)! - cosine(vs.vectorOf(rid)!, q)) < 1e-5, `rid ${rid}`);
    // The float32 rows are read exactly.
    const first = w.store.get<{ rid: number }>(
      'SELECT m.rid AS rid FROM memories m JOIN embeddings e ON e.text_hash = m.embedding_hash WHERE e.text_hash = ?',
      [rows[0]!.text_hash],
    )!;
    assert.deepEqual(Array.from(vs.vectorsOf([Number(first.rid)]).get(Number(first.rid))!), Array.from(originals[0]!));
    await vs.close({ save: true });
    const again = await VectorStore.open({ store: w.store, space, dimension: dim });
    try {
      assert.equal(again.stats().openedFrom, 'file');
      assert.equal(again.state, 'ready');
      assert.deepEqual(
        again.search(q, 5).map((h) => h.rid),
        exactNeighbours(w.store, space, dim, q, 5).map((h) => h.rid),
      );
    } finally {
      await again.close({ save: false });
    }
  } finally {
    await w.store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("ExactIndex with storage 'int8': the stored vectors' exact cosine, same answers as float32 within the tolerance", () => {
  const dim = 512;
  const { vectors, queries } = clusteredVectors({ n: 800, dim, clusters: 16, queries: 30, seed: 12 });
  const f32 = new ExactIndex({ dim, initialCapacity: 16 });
  const q8 = new ExactIndex({ dim, storage: 'int8', initialCapacity: 16 }); // grows
  vectors.forEach((v, i) => {
    f32.add(i + 1, v);
    q8.add(i + 1, v);
  });
  for (let l = 1; l <= 800; l += 9) {
    assert.equal(q8.remove(l), true);
    f32.remove(l);
  }
  assert.equal(q8.size, f32.size);
  const filter = (l: number) => l % 2 === 0;
  let agree = 0;
  let total = 0;
  for (const q of queries) {
    const qn = Math.sqrt(q.reduce((a, x) => a + x * x, 0));
    const a = q8.search(q, 10);
    const b = f32.search(q, 10);
    // Each similarity is the cosine of the row as the table stores it (int8 blob).
    for (const h of a) assert.ok(Math.abs(h.similarity - cosineWithBlob(q, qn, vectorToBlob(vectors[h.label - 1]!), dim)!) < 1e-5);
    for (const h of a) assert.ok(Math.abs(h.similarity - cosine(q, vectors[h.label - 1]!)) < COSINE_TOLERANCE);
    const truth = new Set(b.map((h) => h.label));
    agree += a.filter((h) => truth.has(h.label)).length;
    total += b.length;
    assert.ok(q8.search(q, 10, filter).every((h) => filter(h.label)));
  }
  assert.ok(agree / total >= 0.95, `top-10 overlap with float32 ${agree / total}`);
  // getVector: the normalized dequantized row, whose cosine with itself stored is 1.
  const v = q8.getVector(2)!;
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  assert.ok(cosine(v, vectors[1]!) > 0.9999);
  assert.equal(q8.getVector(1), undefined);
});
