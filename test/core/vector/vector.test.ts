import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  CorruptIndexError,
  ExactIndex,
  HnswIndex,
  HnswlibError,
  loadHnswlib,
  loadIndexFile,
  readIndexFileInfo,
  recallAtK,
  saveIndexFile,
  type VectorHit,
} from '../../../src/core/vector';
import { tmpDir } from '../../helpers/tmp';
import { clusteredVectors, gaussian, rng } from './data';

const root = path.resolve(__dirname, '..', '..', '..');
const fixture = (name: string) => path.join(root, 'test', 'fixtures', name);

function unit(dim: number, i: number, eps = 0): number[] {
  const v = new Array<number>(dim).fill(eps);
  v[i] = 1;
  return v;
}

function labelsOf(hits: VectorHit[]): number[] {
  return hits.map((h) => h.label);
}

test('loadHnswlib: memoized, quiet, leaves no window shim or Emscripten globals behind', async () => {
  const seen: string[] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error };
  console.log = (...a: unknown[]) => void seen.push(a.map(String).join(' '));
  console.warn = console.log;
  console.error = console.log;
  let rt;
  try {
    rt = await loadHnswlib();
    const index = await HnswIndex.create({ dim: 3 });
    index.add(1, [1, 2, 3]);
    index.serialize();
    index.dispose();
  } finally {
    Object.assign(console, saved);
  }
  assert.deepEqual(seen, [], 'hnswlib-wasm printed to the console');
  assert.equal(await loadHnswlib(), rt);
  const g = globalThis as Record<string, unknown>;
  assert.equal(typeof g.window, 'undefined');
  for (const name of ['FS_createPath', 'buffer', 'exitJS', 'getHostByName']) {
    assert.equal(Object.getOwnPropertyDescriptor(globalThis, name), undefined, `global ${name} left behind`);
  }
});

test('loadHnswlib waits on no timer and loads no fetch (undici); fetch is put back', () => {
  // In a fresh process. The package's own loader waited 100 ms before checking its file system
  // and fetched its inlined wasm with Node's fetch (undici, ~50 ms to load): both on the way to
  // an MCP server's first answer.
  const source = path.resolve(__dirname, '../../../src/core/vector/hnswlib.ts');
  const code = `
    const before = globalThis.fetch;
    const timers = [];
    const setTimeoutBefore = globalThis.setTimeout;
    globalThis.setTimeout = (fn, ms, ...rest) => (timers.push(ms), setTimeoutBefore(fn, ms, ...rest));
    require(${JSON.stringify(source)}).loadHnswlib().then(() => {
      globalThis.setTimeout = setTimeoutBefore;
      const undici = process.moduleLoadList.filter((m) => /undici/.test(m));
      console.log(JSON.stringify({ same: globalThis.fetch === before, undici, timers }));
    });`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), { same: true, undici: [], timers: [] });
});

test('native failures become HnswlibError with the C++ message', async () => {
  const rt = await loadHnswlib();
  const native = rt.newNative(4);
  try {
    native.initIndex(4, 16, 100, 1);
    assert.throws(
      () => rt.call('markDelete', () => native.markDelete(42)),
      (err: unknown) => err instanceof HnswlibError && /Label not found/.test(err.message) && err.nativeType === 'std::runtime_error',
    );
    assert.throws(
      () => rt.call('searchKnn', () => native.searchKnn([1, 0, 0], 1, undefined)),
      (err: unknown) => err instanceof HnswlibError && /expected 4, but got 3/.test(err.message),
    );
    // Embind argument errors (a JS TypeError/BindingError) are wrapped too.
    assert.throws(() => rt.call('addPoint', () => native.addPoint([1, 0, 0, 0], -1, false)), HnswlibError);
  } finally {
    native.delete();
  }
});

test('HnswIndex: add, search, upsert, remove', async () => {
  const index = await HnswIndex.create({ dim: 4, M: 8, efConstruction: 50, initialCapacity: 16 });
  try {
    index.add(10, [1, 0, 0, 0]);
    index.add(11, [0, 1, 0, 0]);
    index.add(12, [0, 0, 1, 0]);
    index.add(13, new Float32Array([0.9, 0.1, 0, 0]));
    assert.equal(index.size, 4);
    assert.ok(index.has(13) && !index.has(14));

    const hits = index.search([1, 0, 0, 0], 2);
    assert.deepEqual(labelsOf(hits), [10, 13]);
    assert.ok(Math.abs(hits[0]!.similarity - 1) < 1e-6 && Math.abs(hits[0]!.distance) < 1e-6);
    assert.ok(Math.abs(hits[1]!.similarity - 0.9 / Math.hypot(0.9, 0.1)) < 1e-6);
    assert.ok(hits[0]!.distance <= hits[1]!.distance);
    // k larger than the index: every live vector, best first
    assert.deepEqual(labelsOf(index.search([0, 0, 1, 0], 50)), [12, ...labelsOf(index.search([0, 0, 1, 0], 50)).slice(1)]);
    assert.equal(index.search([0, 0, 1, 0], 50).length, 4);

    // upsert: same label, new vector; size unchanged, old position gone
    index.add(10, [0, 0, 0, 1]);
    assert.equal(index.size, 4);
    assert.equal(index.search([0, 0, 0, 1], 1)[0]!.label, 10);
    assert.equal(index.search([1, 0, 0, 0], 1)[0]!.label, 13);

    // remove: idempotent; removed labels never come back from search
    assert.equal(index.remove(13), true);
    assert.equal(index.remove(13), false);
    assert.equal(index.remove(999), false);
    assert.equal(index.size, 3);
    assert.ok(!labelsOf(index.search([1, 0, 0, 0], 10)).includes(13));
    assert.deepEqual(index.labels().sort(), [10, 11, 12]);

    // re-add a removed label (its deleted slot is revived)
    index.add(13, [0, 1, 1, 0]);
    assert.equal(index.size, 4);
    assert.equal(index.deletedSlots, 0);
    assert.equal(index.search([0, 1, 1, 0], 1)[0]!.label, 13);
    assert.ok(Math.abs(index.getVector(13)![1]! - Math.SQRT1_2) < 1e-6);

    // empty/invalid input
    assert.deepEqual(index.search([1, 0, 0, 0], 0), []);
    assert.throws(() => index.add(1, [1, 0, 0]), /3 dimensions, the index has 4/);
    assert.throws(() => index.add(1, [0, 0, 0, 0]), /all zeros/);
    assert.throws(() => index.add(1, [NaN, 0, 0, 1]), /non-finite/);
    assert.throws(() => index.add(-1, [1, 0, 0, 0]), RangeError);
    assert.throws(() => index.add(2 ** 32, [1, 0, 0, 0]), RangeError);
    assert.throws(() => index.search([1, 0], 3), RangeError);
  } finally {
    index.dispose();
  }
  assert.throws(() => index.search([1, 0, 0, 0], 1), /after dispose/);
});

test('HnswIndex: deleted slots are reused, and a label whose slot was reused can come back', async () => {
  const index = await HnswIndex.create({ dim: 4, initialCapacity: 8 });
  try {
    for (let i = 0; i < 4; i++) index.add(i, unit(4, i, 0.01));
    index.remove(1);
    index.remove(2);
    assert.equal(index.deletedSlots, 2);
    assert.equal(index.slotsUsed, 4);
    index.add(7, [0, 1, 0.2, 0]); // takes one deleted slot
    index.add(8, [0, 0.2, 1, 0]); // and the other
    assert.equal(index.deletedSlots, 0);
    assert.equal(index.slotsUsed, 4, 'new labels should have reused the deleted slots');
    assert.equal(index.size, 4);
    // labels 1 and 2 lost their slots: adding them back inserts them anew
    index.add(1, unit(4, 1));
    index.add(2, unit(4, 2));
    assert.equal(index.size, 6);
    assert.equal(index.search(unit(4, 1), 1)[0]!.label, 1);
    assert.equal(index.search(unit(4, 2), 1)[0]!.label, 2);
    assert.deepEqual(
      index.labels().sort((a, b) => a - b),
      [0, 1, 2, 3, 7, 8],
    );
  } finally {
    index.dispose();
  }
});

test('HnswIndex: grows past its initial capacity (add and addMany)', async () => {
  const { vectors, queries } = clusteredVectors({ n: 700, dim: 16, clusters: 10, queries: 20, seed: 7 });
  const index = await HnswIndex.create({ dim: 16, initialCapacity: 8 });
  const exact = new ExactIndex({ dim: 16, initialCapacity: 2 });
  try {
    for (let i = 0; i < 300; i++) index.add(i, vectors[i]!);
    index.addMany(
      vectors.slice(300).map((_, i) => 300 + i),
      vectors.slice(300),
    );
    for (let i = 0; i < 700; i++) exact.add(i, vectors[i]!);
    assert.equal(index.size, 700);
    assert.ok(index.capacity >= 700);
    assert.equal(exact.size, 700);
    assert.ok(exact.capacity >= 700);
    const approx = queries.map((q) => index.search(q, 10));
    const truth = queries.map((q) => exact.search(q, 10));
    assert.ok(recallAtK(approx, truth) >= 0.95);
    // addMany upserts: replace the first 50 with the vectors of 400..449
    index.addMany(
      Array.from({ length: 50 }, (_, i) => i),
      vectors.slice(400, 450),
    );
    assert.equal(index.size, 700);
    assert.ok(Math.abs(index.search(vectors[420]!, 2)[1]!.similarity - 1) < 1e-5);
  } finally {
    index.dispose();
  }
});

test('filtered search (HNSW and exact) returns only accepted labels, the nearest ones', async () => {
  const { vectors, queries } = clusteredVectors({ n: 2000, dim: 32, clusters: 20, queries: 30, seed: 11 });
  const index = await HnswIndex.create({ dim: 32 });
  const exact = new ExactIndex({ dim: 32 });
  try {
    index.addMany(
      vectors.map((_, i) => i),
      vectors,
    );
    exact.addMany(
      vectors.map((_, i) => i),
      vectors,
    );
    for (const [name, filter] of [
      ['every third', (l: number) => l % 3 === 0],
      ['one in a hundred', (l: number) => l % 100 === 7],
    ] as const) {
      const approx = queries.map((q) => index.search(q, 10, filter));
      const truth = queries.map((q) => exact.search(q, 10, filter));
      for (const hits of [...approx, ...truth]) {
        assert.equal(hits.length, 10, name);
        assert.ok(
          hits.every((h) => filter(h.label)),
          name,
        );
      }
      assert.ok(recallAtK(approx, truth) >= 0.95, `${name}: recall ${recallAtK(approx, truth)}`);
    }
    // Fewer accepted labels than k: all of them come back.
    const few = (l: number) => l === 5 || l === 1500;
    assert.deepEqual(
      labelsOf(index.search(queries[0]!, 10, few)).sort((a, b) => a - b),
      [5, 1500],
    );
    assert.deepEqual(
      labelsOf(exact.search(queries[0]!, 10, few)).sort((a, b) => a - b),
      [5, 1500],
    );
    // Nothing accepted.
    assert.deepEqual(
      index.search(queries[0]!, 10, () => false),
      [],
    );
    // A throwing filter surfaces its own error, and the index keeps working.
    assert.throws(
      () =>
        index.search(queries[0]!, 10, () => {
          throw new Error('filter exploded');
        }),
      /filter exploded/,
    );
    assert.equal(index.search(queries[0]!, 10).length, 10);
  } finally {
    index.dispose();
  }
});

test('save → load gives an identical index (neighbours, deletions, watermark)', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'vectors', 'main.idx');
  const { vectors, queries } = clusteredVectors({ n: 1500, dim: 24, clusters: 15, queries: 25, seed: 3 });
  const index = await HnswIndex.create({ dim: 24, efSearch: 80, initialCapacity: 100 });
  index.addMany(
    vectors.map((_, i) => i * 3),
    vectors,
  );
  for (let i = 0; i < 100; i++) index.remove(i * 3 * 7);
  const before = queries.map((q) => index.search(q, 10));
  const saved = await saveIndexFile(file, index, { watermark: 123456789 });
  assert.equal(saved.count, 1400);

  const info = await readIndexFileInfo(file);
  assert.equal(info.watermark, 123456789);
  assert.equal(info.dim, 24);
  assert.equal(info.count, 1400);

  const { index: loaded, info: loadedInfo } = await loadIndexFile(file);
  try {
    assert.equal(loadedInfo.watermark, 123456789);
    assert.equal(loaded.size, 1400);
    assert.equal(loaded.efSearch, 80);
    assert.equal(loaded.deletedSlots, 100);
    assert.deepEqual(
      loaded.labels().sort((a, b) => a - b),
      index.labels().sort((a, b) => a - b),
    );
    assert.deepEqual(
      queries.map((q) => loaded.search(q, 10)),
      before,
    );
    assert.ok(!loaded.has(7 * 3) && loaded.has(3));
    // The loaded index keeps working: deletes, slot reuse, growth.
    loaded.remove(3);
    loaded.add(3, vectors[1]!);
    for (let i = 0; i < 300; i++) loaded.add(100000 + i, vectors[i]!);
    assert.equal(loaded.size, 1700);
    // bytes round trip without the file too
    const copy = await HnswIndex.deserialize(index.serialize(), { efSearch: 80 });
    assert.deepEqual(
      queries.map((q) => copy.search(q, 10)),
      before,
    );
    copy.dispose();
  } finally {
    loaded.dispose();
    index.dispose();
  }
});

test('corrupt, truncated or foreign index files throw CorruptIndexError', async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'good.idx');
  const index = await HnswIndex.create({ dim: 8 });
  const g = gaussian(rng(9));
  for (let i = 0; i < 200; i++) index.add(i, Array.from({ length: 8 }, g));
  await saveIndexFile(file, index, { watermark: 1 });
  index.dispose();
  const good = fs.readFileSync(file);

  const variant = (name: string, bytes: Uint8Array) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, bytes);
    return p;
  };
  const flipped = (at: number) => {
    const b = Buffer.from(good);
    b[at] = b[at]! ^ 0x40;
    return b;
  };
  const cases: Array<[string, Uint8Array, string]> = [
    ['empty', new Uint8Array(0), 'truncated'],
    ['header-only-part', good.subarray(0, 30), 'truncated'],
    ['truncated-payload', good.subarray(0, good.length - 100), 'truncated'],
    ['cut-in-half', good.subarray(0, good.length >> 1), 'truncated'],
    ['payload-bit-flip', flipped(good.length - 500), 'payload-checksum'],
    ['payload-first-byte', flipped(64), 'payload-checksum'],
    ['header-bit-flip', flipped(20), 'header-checksum'],
    ['foreign', Buffer.from('SQLite format 3\0'.padEnd(200, 'x')), 'bad-magic'],
    ['trailing-garbage', Buffer.concat([good, Buffer.from('junk')]), 'bad-payload'],
  ];
  for (const [name, bytes, reason] of cases) {
    const p = variant(name, bytes);
    await assert.rejects(
      loadIndexFile(p),
      (err: unknown) => err instanceof CorruptIndexError && err.reason === reason && err.message.includes(p),
      `${name} should be ${reason}`,
    );
  }
  await assert.rejects(
    loadIndexFile(file, { expectDim: 16 }),
    (err: unknown) => err instanceof CorruptIndexError && err.reason === 'mismatch',
  );
  await assert.rejects(loadIndexFile(path.join(dir, 'missing.idx')), { code: 'ENOENT' });
  // Bytes that are not a serialized index at all.
  await assert.rejects(HnswIndex.deserialize(new Uint8Array(100)), CorruptIndexError);
  // The good file still loads.
  const { index: ok } = await loadIndexFile(file);
  assert.equal(ok.size, 200);
  ok.dispose();
});

test('recall@10 of HNSW vs ExactIndex is at least 0.98 on 5,000 clustered 128-d vectors', async () => {
  const { vectors, queries } = clusteredVectors({ n: 5000, dim: 128, clusters: 50, queries: 200, seed: 1234 });
  const index = await HnswIndex.create({ dim: 128 });
  const exact = new ExactIndex({ dim: 128 });
  const labels = vectors.map((_, i) => i);
  index.addMany(labels, vectors);
  exact.addMany(labels, vectors);
  const approx = queries.map((q) => index.search(q, 10));
  const truth = queries.map((q) => exact.search(q, 10));
  const recall = recallAtK(approx, truth);
  index.dispose();
  assert.ok(recall >= 0.98, `recall@10 = ${recall}`);
});

test('ExactIndex matches a naive cosine computation (with upserts, removals, filters)', () => {
  const dim = 37; // not a multiple of 4: exercises the loop tail
  const rand = rng(77);
  const g = gaussian(rand);
  const index = new ExactIndex({ dim, initialCapacity: 3 });
  const truth = new Map<number, number[]>();
  for (let i = 0; i < 600; i++) {
    const label = Math.floor(rand() * 400) * 11; // repeats → upserts
    const v = Array.from({ length: dim }, g);
    index.add(label, v);
    truth.set(label, v);
    if (i % 5 === 0) {
      const victim = [...truth.keys()][Math.floor(rand() * truth.size)]!;
      assert.equal(index.remove(victim), true);
      truth.delete(victim);
    }
  }
  assert.equal(index.size, truth.size);
  assert.deepEqual(
    index.labels().sort((a, b) => a - b),
    [...truth.keys()].sort((a, b) => a - b),
  );

  const cos = (a: number[], b: number[]) => {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      na += a[i]! * a[i]!;
      nb += b[i]! * b[i]!;
    }
    return dot / Math.sqrt(na * nb);
  };
  for (let qi = 0; qi < 25; qi++) {
    const q = Array.from({ length: dim }, g);
    const filter = qi % 2 ? (l: number) => l % 2 === 0 : undefined;
    for (const k of [1, 10, 1000]) {
      const naive = [...truth]
        .filter(([l]) => !filter || filter(l))
        .map(([label, v]) => ({ label, similarity: cos(q, v) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, k);
      const got = index.search(q, k, filter);
      assert.equal(got.length, naive.length);
      for (let i = 0; i < got.length; i++) {
        assert.ok(
          Math.abs(got[i]!.similarity - naive[i]!.similarity) < 1e-5,
          `rank ${i}: ${got[i]!.similarity} vs ${naive[i]!.similarity}`,
        );
        assert.ok(Math.abs(got[i]!.distance - (1 - naive[i]!.similarity)) < 1e-5);
        if (i + 1 < got.length) assert.ok(got[i]!.similarity >= got[i + 1]!.similarity);
      }
      // Same labels wherever similarities are not (near-)tied.
      const gotLabels = labelsOf(got as VectorHit[]);
      naive.forEach((n, i) => {
        const tied = naive.some((m, j) => j !== i && Math.abs(m.similarity - n.similarity) < 1e-6);
        if (!tied) assert.equal(gotLabels[i], n.label);
      });
    }
  }
  assert.equal(index.remove(123456), false);
  assert.deepEqual(new ExactIndex({ dim: 3 }).search([1, 0, 0], 5), []);
});

test('recallAtK', () => {
  assert.equal(recallAtK([[1, 2, 3]], [[1, 2, 3]]), 1);
  assert.equal(recallAtK([[1, 9, 3]], [[3, 2, 1]]), 2 / 3);
  assert.equal(recallAtK([[{ label: 1 }], [5]], [[{ label: 1 }], [6]]), 0.5);
  assert.equal(recallAtK([[1, 2, 3, 4]], [[4, 3, 2, 1]], 2), 0);
  assert.equal(recallAtK([[]], [[]]), 1);
  assert.throws(() => recallAtK([[1]], []), RangeError);
});

test('works in a worker thread', async () => {
  const vectors = [unit(5, 0), unit(5, 1), unit(5, 2), unit(5, 3, 0.1), unit(5, 4)];
  // tsx's CJS hook inside the worker (execArgv '--import tsx' does not reach worker entry points on Node 20).
  const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(fixture('vector-worker.ts'))});`, {
    eval: true,
    workerData: { vectors, query: [0.1, 1, 0, 0, 0] },
  });
  const msg = await new Promise<{ hits?: VectorHit[]; copyHits?: VectorHit[]; windowDefined?: boolean; error?: string }>(
    (resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    },
  );
  await worker.terminate();
  assert.equal(msg.error, undefined);
  assert.equal(msg.hits![0]!.label, 1);
  assert.deepEqual(msg.copyHits, msg.hits);
  assert.equal(msg.windowDefined, false);
});

test('works when bundled by esbuild (platform node, CJS)', async () => {
  const dir = tmpDir();
  const out = path.join(dir, 'bundle.cjs');
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [fixture('vector-bundle-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: out,
    logLevel: 'silent',
  });
  const r = spawnSync(process.execPath, [out, dir], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const res = JSON.parse(r.stdout.trim()) as { hnsw: number[]; exact: number[]; loaded: number[]; watermark: number; window: string };
  assert.deepEqual(res.hnsw, res.exact);
  assert.deepEqual(res.loaded, res.exact);
  assert.equal(res.watermark, 7);
  assert.equal(res.window, 'undefined');
});
