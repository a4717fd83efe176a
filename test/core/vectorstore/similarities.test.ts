/**
 * VectorStore.similarities reads the stored vectors from the database (storedSimilarities.ts)
 * instead of the index: it must agree with the index's own vectors through create, update,
 * delete, restore, purge and a rebuild, and answer only for live memories with a vector.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, sampleTexts } from '../../fixtures/writePath';
import { cosine } from '../../../src/core/embed/vector';
import { cosineWithBlob, storedSimilarities, storedVectors } from '../../../src/core/vectorstore/storedSimilarities';
import { blobToVector, vectorToBlob, vectorToFloat32Blob } from '../../../src/core/vectorstore/blob';
import { VectorStore } from '../../../src/core/vectorstore/vectorStore';

type W = Awaited<ReturnType<typeof openWritePath>>;

/** Every rid the index holds gets its index-vector cosine; every other rid is absent. */
function assertAgreesWithIndex(w: W | { vectors: VectorStore }, q: Float32Array, rids: number[]): void {
  const sims = w.vectors.similarities(q, rids);
  for (const rid of rids) {
    const v = w.vectors.vectorOf(rid);
    if (!v) {
      assert.equal(sims.has(rid), false, `rid ${rid} has no indexed vector but got a similarity`);
      continue;
    }
    assert.ok(sims.has(rid), `rid ${rid} is indexed but has no similarity`);
    assert.ok(Math.abs(sims.get(rid)! - cosine(v, q)) < 1e-5, `rid ${rid}: ${sims.get(rid)} vs ${cosine(v, q)}`);
  }
}

test('similarities follow create, update, delete, restore and purge, like the index', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vsim-') });
  try {
    const rids: number[] = [];
    const ids: string[] = [];
    for (const t of sampleTexts(12, 3)) {
      const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
      assert.equal(r.result.status, 'created');
      if (r.result.status === 'created') {
        rids.push(r.result.memory.rid);
        ids.push(r.result.memory.id);
      }
    }
    const q = (await w.embedder.embed(['scheduler batches queries under load'], 'query'))[0]!;
    const all = [...rids, 999_999, -1];
    assertAgreesWithIndex(w, q, all);
    assert.equal(w.vectors.similarities(q, all).size, 12);

    // Update: the new text's vector, not the old one.
    const before = w.vectors.similarities(q, [rids[0]!]).get(rids[0]!)!;
    await w.ingest.update(ids[0]!, { content: 'The scheduler batches queries under load with backoff.' });
    const after = w.vectors.similarities(q, [rids[0]!]).get(rids[0]!)!;
    assert.notEqual(after, before);
    assertAgreesWithIndex(w, q, all);

    // Soft delete: gone; restore: back.
    w.svc.delete(ids[1]!);
    assert.equal(w.vectors.similarities(q, [rids[1]!]).has(rids[1]!), false);
    assertAgreesWithIndex(w, q, all);
    w.svc.restore(ids[1]!);
    assert.equal(w.vectors.similarities(q, [rids[1]!]).has(rids[1]!), true);
    assertAgreesWithIndex(w, q, all);

    // Purge by any writer.
    w.store.transaction((tx) => tx.run('DELETE FROM memories WHERE id = ?', [ids[2]!]));
    assert.equal(w.vectors.similarities(q, [rids[2]!]).has(rids[2]!), false);
    assertAgreesWithIndex(w, q, all);

    // A memory without a vector (written by a pipeline without embedding) is absent.
    const bare = w.svc.create({ content: 'Written without a vector; the backfill embeds it later.' });
    assert.equal(bare.status, 'created');
    if (bare.status === 'created') assert.equal(w.vectors.similarities(q, [bare.memory.rid]).has(bare.memory.rid), false);

    // vectorsOf (vector feedback) reads the same stored vectors: unit length, same cosine.
    const vecs = w.vectors.vectorsOf([rids[0]!, rids[1]!, rids[2]!, 999_999]);
    assert.deepEqual(
      [...vecs.keys()].sort((a, b) => a - b),
      [rids[0]!, rids[1]!].sort((a, b) => a - b),
    );
    for (const [rid, v] of vecs) assert.ok(Math.abs(cosine(v, q) - w.vectors.similarities(q, [rid]).get(rid)!) < 1e-6);

    // Duplicated rids are answered once; more rids than one statement holds still all answer.
    assert.equal(w.vectors.similarities(q, [rids[3]!, rids[3]!]).size, 1);
    const many = Array.from({ length: 1500 }, (_, i) => (i % 3 === 0 ? rids[i % rids.length]! : 100_000 + i));
    assert.equal(w.vectors.similarities(q, many).size, new Set(many.filter((r) => w.vectors.vectorOf(r))).size);
  } finally {
    await w.close();
  }
});

test('similarities agree with the index while it is rebuilt and after the rebuild', async () => {
  const dir = tmpDir('am-vsim-');
  const w = await openWritePath({ dir });
  const rids: number[] = [];
  for (const t of sampleTexts(20, 9)) {
    const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
    if (r.result.status === 'created') rids.push(r.result.memory.rid);
  }
  const q = (await w.embedder.embed(['logger compresses frames'], 'query'))[0]!;
  const space = w.embedder.space;
  await w.vectors.whenReady();
  await w.vectors.close({ save: true });
  assert.ok(fs.existsSync(w.vectors.file));
  fs.rmSync(w.vectors.file); // forces a background rebuild on the next open
  const vs = await VectorStore.open({ store: w.store, space, dimension: 512, rebuildBatch: 3 });
  try {
    assert.equal(vs.state, 'rebuilding');
    assertAgreesWithIndex({ vectors: vs }, q, rids);
    assert.equal(vs.similarities(q, rids).size, 20);
    await vs.whenReady();
    assert.equal(vs.state, 'ready');
    assertAgreesWithIndex({ vectors: vs }, q, rids);
  } finally {
    await vs.close({ save: false });
    await w.store.close();
  }
});

test('cosineWithBlob: exact cosine of a stored blob (both formats); wrong size, zero or non-finite vectors are unusable', () => {
  const q = Float32Array.from([1, 2, 2]);
  const qn = 3;
  const v = Float32Array.from([2, 0, 0]);
  // [2, 0, 0] is exactly representable in int8 (code 127 × scale 2/127): both formats are exact here.
  for (const toBlob of [vectorToBlob, vectorToFloat32Blob]) {
    const blob = toBlob(v);
    assert.ok(Math.abs(cosineWithBlob(q, qn, blob, 3)! - 1 / 3) < 1e-6);
    // An unaligned view (sql.js may hand out any offset) reads the same numbers.
    const shifted = new Uint8Array(blob.length + 1);
    shifted.set(blob, 1);
    assert.ok(Math.abs(cosineWithBlob(q, qn, shifted.subarray(1), 3)! - 1 / 3) < 1e-6);
    assert.equal(cosineWithBlob(q, qn, toBlob(Float32Array.from([1, 2])), 3), undefined);
    assert.equal(cosineWithBlob(q, qn, toBlob(new Float32Array(3)), 3), undefined);
    assert.equal(cosineWithBlob(q, qn, toBlob(Float32Array.from([NaN, 1, 1])), 3), undefined);
    assert.equal(cosineWithBlob(q, qn, toBlob(Float32Array.from([Infinity, 1, 1])), 3), undefined);
  }
  assert.equal(cosineWithBlob(q, qn, 'not a blob', 3), undefined);
});

test('storedSimilarities (one statement, hex-decoded) equals scoring each stored row read on its own, bit for bit, in both blob formats', async () => {
  const w = await openWritePath({ dir: tmpDir('am-vsim-') });
  try {
    const rids: number[] = [];
    for (const t of sampleTexts(30, 5)) {
      const r = await w.ingest.create({ content: t, allowNearDuplicate: true });
      if (r.result.status === 'created') rids.push(r.result.memory.rid);
    }
    const space = w.embedder.space;
    // A third of the rows as older versions wrote them (float32), one with a blob of a wrong size.
    w.store.transaction((tx) => {
      const rows = tx.all<{ text_hash: string; vector: Uint8Array }>('SELECT text_hash, vector FROM embeddings WHERE space = ?', [space]);
      rows.forEach((r, i) => {
        if (i % 3 === 0) {
          const v = blobToVector(r.vector, 512)!;
          tx.run('UPDATE embeddings SET vector = ? WHERE space = ? AND text_hash = ?', [vectorToFloat32Blob(v), space, r.text_hash]);
        } else if (i === 1) {
          tx.run('UPDATE embeddings SET vector = ? WHERE space = ? AND text_hash = ?', [new Uint8Array(7), space, r.text_hash]);
        }
      });
    });
    const q = (await w.embedder.embed(['scheduler batches queries under load'], 'query'))[0]!;
    let qq = 0;
    for (const x of q) qq += x * x;
    const asked = [...rids, rids[4]!, 424_242, -1];
    const naive = new Map<number, number>();
    for (const r of w.store.all<{ rid: number; vector: Uint8Array }>(
      `SELECT m.rid AS rid, e.vector AS vector FROM memories m JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash WHERE m.deleted_at IS NULL`,
      [space],
    )) {
      const sim = cosineWithBlob(q, Math.sqrt(qq), r.vector, 512);
      if (sim !== undefined && asked.includes(Number(r.rid))) naive.set(Number(r.rid), sim);
    }
    const got = storedSimilarities(w.store, { space, dim: 512 }, q, asked);
    assert.equal(got.size, naive.size);
    assert.equal(got.size, rids.length - 1, 'every row but the wrong-sized one');
    for (const [rid, sim] of naive) assert.ok(Object.is(got.get(rid), sim), `rid ${rid}: ${got.get(rid)} vs ${sim}`);
    const vecs = storedVectors(w.store, { space, dim: 512 }, asked);
    assert.deepEqual(
      [...vecs.keys()].sort((a, b) => a - b),
      [...naive.keys()].sort((a, b) => a - b),
    );
  } finally {
    await w.close();
  }
});
