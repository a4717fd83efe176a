/**
 * Vector layer measurements (printed, not asserted):
 *   node --import tsx bench/vector.bench.ts [n] [dim]
 * Defaults: 10,000 clustered 512-d vectors, 500 queries, k = 10.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExactIndex, HnswIndex, loadHnswlib, loadIndexFile, recallAtK, saveIndexFile, type VectorHit } from '../src/core/vector';
import { clusteredVectors } from '../test/core/vector/data';

const N = Number(process.argv[2] ?? 10_000);
const DIM = Number(process.argv[3] ?? 512);
const QUERIES = 500;
const K = 10;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function timeQueries(
  queries: Float32Array[],
  fn: (q: Float32Array) => VectorHit[],
): { p50: number; p99: number; mean: number; results: VectorHit[][] } {
  for (let i = 0; i < Math.min(50, queries.length); i++) fn(queries[i]!); // warm-up
  const times: number[] = [];
  const results: VectorHit[][] = [];
  for (const q of queries) {
    const t = performance.now();
    results.push(fn(q));
    times.push(performance.now() - t);
  }
  return { p50: pct(times, 50), p99: pct(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, results };
}

const ms = (x: number) => `${x.toFixed(3)} ms`;

async function main(): Promise<void> {
  const rows: Array<[string, string]> = [];
  const row = (name: string, value: string) => {
    rows.push([name, value]);
    console.log(`${name.padEnd(52)} ${value}`);
  };
  console.log(`vector bench: ${N} × ${DIM}-d clustered vectors, ${QUERIES} queries, k=${K}, node ${process.version}`);

  let t = performance.now();
  await loadHnswlib();
  row('hnswlib-wasm load', ms(performance.now() - t));

  const { vectors, queries } = clusteredVectors({
    n: N,
    dim: DIM,
    clusters: Math.max(10, Math.round(N / 100)),
    queries: QUERIES,
    seed: 42,
  });
  const labels = vectors.map((_, i) => i);

  // Exact baseline.
  const exact = new ExactIndex({ dim: DIM });
  t = performance.now();
  exact.addMany(labels, vectors);
  row('ExactIndex build', ms(performance.now() - t));
  const ex = timeQueries(queries, (q) => exact.search(q, K));
  row('ExactIndex search p50 / p99', `${ms(ex.p50)} / ${ms(ex.p99)}`);
  const exF = timeQueries(queries, (q) => exact.search(q, K, (l) => l % 3 === 0));
  row('ExactIndex filtered (1/3) search p50 / p99', `${ms(exF.p50)} / ${ms(exF.p99)}`);

  // HNSW, batch build (addMany → addPoints).
  const params = { dim: DIM, M: 16, efConstruction: 100, efSearch: 64 };
  const hnsw = await HnswIndex.create({ ...params, initialCapacity: 1024 });
  t = performance.now();
  hnsw.addMany(labels, vectors);
  const buildMs = performance.now() - t;
  row(`HNSW build, addMany (M=16, efC=100)`, `${ms(buildMs)} (${((buildMs / N) * 1000).toFixed(0)} µs/vector)`);

  // HNSW, one add() at a time (hnswlib-wasm rescans its label table after each addPoint).
  const single = await HnswIndex.create({ ...params, initialCapacity: 1024 });
  t = performance.now();
  for (let i = 0; i < N; i++) single.add(i, vectors[i]!);
  row('HNSW build, add() one by one', ms(performance.now() - t));
  single.dispose();

  for (const ef of [32, 64, 128]) {
    hnsw.setEf(ef);
    const r = timeQueries(queries, (q) => hnsw.search(q, K));
    row(`HNSW search ef=${ef} p50 / p99`, `${ms(r.p50)} / ${ms(r.p99)}   recall@10 ${recallAtK(r.results, ex.results).toFixed(4)}`);
  }
  hnsw.setEf(64);
  const hf = timeQueries(queries, (q) => hnsw.search(q, K, (l) => l % 3 === 0));
  row('HNSW filtered (1/3) ef=64 p50 / p99', `${ms(hf.p50)} / ${ms(hf.p99)}   recall@10 ${recallAtK(hf.results, exF.results).toFixed(4)}`);
  const exF100 = queries.map((q) => exact.search(q, K, (l) => l % 100 === 0));
  const hf100 = timeQueries(queries, (q) => hnsw.search(q, K, (l) => l % 100 === 0));
  row(
    'HNSW filtered (1/100) ef=64 p50 / p99',
    `${ms(hf100.p50)} / ${ms(hf100.p99)}   recall@10 ${recallAtK(hf100.results, exF100).toFixed(4)}`,
  );
  const asArrays = queries.map((q) => Array.from(q));
  const arr = timeQueries(asArrays as unknown as Float32Array[], (q) => hnsw.search(q, K));
  row('HNSW search ef=64, query as number[] p50', ms(arr.p50));

  // Persistence.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-vector-bench-'));
  const file = path.join(dir, 'bench.idx');
  try {
    const median = async (fn: () => unknown) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await fn();
        times.push(performance.now() - t0);
      }
      return pct(times, 50);
    };
    const bytes = hnsw.serialize();
    row('HNSW serialize() median of 5', `${ms(await median(() => hnsw.serialize()))} (${(bytes.length / 1048576).toFixed(1)} MiB)`);
    row(
      'saveIndexFile median of 5 (serialize+CRC+write+fsync+rename)',
      ms(await median(() => saveIndexFile(file, hnsw, { watermark: 1 }))),
    );
    row('loadIndexFile median of 5 (read+CRC+deserialize)', ms(await median(async () => (await loadIndexFile(file)).index.dispose())));
    const { index: loaded } = await loadIndexFile(file);
    const lr = timeQueries(queries, (q) => loaded.search(q, K));
    row('loaded index recall@10 (ef=64)', recallAtK(lr.results, ex.results).toFixed(4));
    loaded.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const rt = await loadHnswlib();
  row('wasm heap after bench', `${(rt.module.asm.memory.buffer.byteLength / 1048576).toFixed(0)} MiB`);
  hnsw.dispose();
  console.log(JSON.stringify({ n: N, dim: DIM, queries: QUERIES, k: K, results: Object.fromEntries(rows) }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
