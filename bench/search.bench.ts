/**
 * Search benchmark at one size (a child of bench/index.ts, so peak RSS is per size):
 * hybrid search latency (query embedding excluded) over a real store + HNSW, the same search
 * with an exact brute-force vector leg as the in-run baseline, raw ANN vs exact latency and
 * recall@10, and RSS. Memories: the Zipf synthetic corpus (bench/corpus.ts); vectors: 512-d
 * clustered (the shape of real embeddings, as in bench/vector.bench.ts), vector i ↔ memory i.
 *
 * Queries: 2 words from one memory's text that are not among the vocabulary's 100 most frequent
 * + 1 word of any frequency (what a person types: a couple of distinctive terms and a common
 * one). `common_terms_*` reports a worst case: 3 of the 30 most frequent words.
 *
 * Vectors are held as the engine holds them: the `embeddings` row is the compact (int8) blob and
 * the HNSW index gets the vector read back from it (VectorStore syncs the index from the table).
 *
 * RSS: `peak_rss_mb` is the product's footprint — everything up to and including a snapshot of
 * the store and a save of the index — taken BEFORE the exact baseline runs. The baseline is brute
 * force over the stored rows, read in rid ranges (no third in-memory copy of the vectors);
 * `peak_rss_with_baseline_mb` is the peak of the whole run.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID, createHash } from 'node:crypto';
import { Store } from '../src/core/store/store';
import { HnswIndex } from '../src/core/vector/hnswIndex';
import { loadHnswlib } from '../src/core/vector/hnswlib';
import { saveIndexFile } from '../src/core/vector/indexFile';
import { recallAtK } from '../src/core/vector/recall';
import { IndexVectorSearcher } from '../src/core/search/indexSearcher';
import type { VectorSearcher } from '../src/core/search/types';
import { storedSimilarities } from '../src/core/vectorstore/storedSimilarities';
import { blobToVector, cosineWithBlob, vectorToBlob } from '../src/core/vectorstore/blob';
import { HybridSearch } from '../src/core/search/hybrid';
import { ftsExpression } from '../src/core/search/fullText';
import type { Embedder } from '../src/core/embed/types';
import { Rng, syntheticMemories, vocabulary } from './corpus';
import { gaussian, rng } from '../test/core/vector/data';
import { median, peakRssMb, percentile, round } from './stats';
import type { FootprintResult } from './footprint.child';

export interface SearchBenchResult {
  memories: number;
  dim: number;
  queries: number;
  preload_ms: number;
  hnsw_build_ms: number;
  hybrid_p50_ms: number;
  hybrid_p99_ms: number;
  /** 150 queries, three searchers alternating per query: the default (SQL similarities, feedback on)… */
  ab_default_p50_ms: number;
  /** …similarities from HnswIndex.getVector (what VectorStore did before)… */
  ab_getvector_similarities_p50_ms: number;
  /** …and vector feedback off. */
  ab_no_feedback_p50_ms: number;
  ab_default_p99_ms: number;
  ab_getvector_similarities_p99_ms: number;
  ab_no_feedback_p99_ms: number;
  /** …and the keyword leg ranking every matching row (fullTextPruning off: the same results, the old cost). */
  ab_fulltext_unpruned_p50_ms: number;
  ab_fulltext_unpruned_p99_ms: number;
  /** The 3-common-words worst case, pruned (default) and unpruned alternating (100 queries). */
  /**
   * The engine's search request (src/engine/services/search.ts), alternating per query: results
   * with their whole contents from the search's one read of the rows (withContent)…
   */
  ab_hits_whole_p50_ms: number;
  /** …and what the engine did before: the summaries, then each hit read again by id (SELECT *). */
  ab_hits_reread_p50_ms: number;
  ab_common_terms_p50_ms: number;
  ab_common_terms_unpruned_p50_ms: number;
  hybrid_exact_baseline_p50_ms: number;
  hybrid_exact_baseline_p99_ms: number;
  hybrid_speedup_vs_exact_p50: number;
  fts_matches_p50: number;
  common_terms_hybrid_p50_ms: number;
  common_terms_fts_matches_p50: number;
  ann_p50_ms: number;
  ann_p99_ms: number;
  exact_p50_ms: number;
  exact_p99_ms: number;
  /** Against exact search over the same stored vectors (what the index is built from): the ANN error alone. */
  ann_recall_at_10: number;
  /** Against exact search over the float32 originals: ANN and int8 storage together. */
  ann_recall_at_10_vs_float32: number;
  /** RSS with the store (its `embeddings` table holds every vector) and HNSW, before any search… */
  rss_before_search_mb: number;
  /** …and after the searches. */
  rss_after_hnsw_mb: number;
  /** The database (page_count × page_size; sql.js keeps it in memory) and its vector rows. */
  db_mb: number;
  embeddings_mb: number;
  /** hnswlib-wasm's heap (never shrinks). */
  hnsw_heap_mb: number;
  /** Store snapshot + index save (the engine's idle step), and RSS right after. */
  snapshot_and_save_ms: number;
  /** Exact cosine of 60 rids (the keyword-only candidates of one search): HnswIndex.getVector per rid (p50 ms)… */
  similarities_getvector_p50_ms: number;
  /** …vs one SQL read of the stored blobs (what VectorStore.similarities does now). */
  similarities_sql_p50_ms: number;
  /** Peak RSS of the product's work (preload, index, searches, snapshot, index save), before the baseline. */
  peak_rss_mb: number;
  /** Peak RSS of the whole run, exact baseline included. */
  peak_rss_with_baseline_mb: number;
  /**
   * The product's footprint after a restart (bench/footprint.child.ts, own process): store opened
   * from its snapshot, index from its file, the 300 queries through one HybridSearch, a write,
   * snapshot, index save. No benchmark data in that process.
   */
  restart_open_ms: number;
  restart_rss_after_open_mb: number;
  restart_rss_after_search_mb: number;
  restart_peak_rss_mb: number;
}

/** Runs bench/footprint.child.ts on the saved store and index; its figures as restart_*. */
function footprintAfterRestart(
  dir: string,
  space: string,
  texts: string[],
  qvecs: Float32Array[],
  workDir: string,
): Pick<SearchBenchResult, 'restart_open_ms' | 'restart_rss_after_open_mb' | 'restart_rss_after_search_mb' | 'restart_peak_rss_mb'> {
  const queries = path.join(workDir, `footprint-queries-${process.pid}.json`);
  fs.writeFileSync(queries, JSON.stringify({ projectId: PROJECT, texts, vectors: qvecs.map((v) => Array.from(v)) }));
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'footprint.child.ts'), dir, space, queries], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'], // its stages go to our stderr
      maxBuffer: 16 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`footprint child failed (exit ${r.status})`);
    const f = JSON.parse(r.stdout.trim().split('\n').pop()!) as FootprintResult;
    if (f.index_opened_from !== 'file' || f.snapshot_from !== 'live-file')
      throw new Error(`footprint child: index from ${f.index_opened_from}, snapshot from ${f.snapshot_from}`);
    progress(
      `after a restart: open ${f.open_ms} ms, RSS ${f.rss_after_open_mb} MB, after searches ${f.rss_after_search_mb} MB, peak ${f.peak_rss_mb} MB`,
    );
    return {
      restart_open_ms: f.open_ms,
      restart_rss_after_open_mb: f.rss_after_open_mb,
      restart_rss_after_search_mb: f.rss_after_search_mb,
      restart_peak_rss_mb: f.peak_rss_mb,
    };
  } finally {
    fs.rmSync(queries, { force: true });
  }
}

const DIM = 512;
const QUERIES = 300;
const PROJECT = 'bench/search';
const progress = (s: string) => process.stderr.write(`  [search] ${s}\n`);
const rssMb = () => round(process.memoryUsage().rss / 1024 / 1024, 1);

/** clusteredVectors() streamed: the same distribution without holding n vectors twice. */
function* vectorStream(n: number, dim: number, clusters: number, seed: number): Generator<Float32Array> {
  const g = gaussian(rng(seed));
  const centres: Float32Array[] = [];
  for (let c = 0; c < clusters; c++) centres.push(Float32Array.from({ length: dim }, () => g()));
  for (let i = 0; i < n; i++) {
    const c = centres[i % clusters]!;
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = c[j]! + 0.35 * g();
    yield v;
  }
}

/**
 * The engine's VectorStore read path without its file/sync machinery: ANN from the HNSW index,
 * exact similarities from the stored blobs (storedSimilarities, as VectorStore.similarities).
 */
class StoredVectorSearcher implements VectorSearcher {
  readonly dimension = DIM;
  constructor(
    private readonly store: Store,
    private readonly index: HnswIndex,
    readonly space: string,
  ) {}
  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[] {
    return this.index.search(query, k, filter).map((h) => ({ rid: h.label, similarity: h.similarity }));
  }
  similarities(query: Float32Array, rids: number[]): Map<number, number> {
    return storedSimilarities(this.store, { space: this.space, dim: DIM }, query, rids);
  }
}

/**
 * Exact brute force over the stored rows, read in rid ranges of CHUNK: the baseline, without
 * holding a third copy of every vector in memory (an ExactIndex would add 195 MB at 100k).
 */
class StoredExactSearcher implements VectorSearcher {
  readonly dimension = DIM;
  private static readonly CHUNK = 4096;
  private readonly maxRid: number;
  constructor(
    private readonly store: Store,
    readonly space: string,
  ) {
    this.maxRid = Number(store.get<{ r: number }>('SELECT max(rid) AS r FROM memories')?.r ?? 0);
  }
  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[] {
    return this.scan([query], k, filter)[0]!;
  }
  /** Top-k rids of each query, in one pass over the rows. */
  searchMany(queries: Float32Array[], k: number): number[][] {
    return this.scan(queries, k).map((top) => top.map((h) => h.rid));
  }
  private scan(queries: Float32Array[], k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[][] {
    const norms = queries.map((q) => Math.sqrt(q.reduce((a, x) => a + x * x, 0)));
    const tops = queries.map(() => [] as { rid: number; similarity: number }[]);
    for (let lo = 0; lo < this.maxRid; lo += StoredExactSearcher.CHUNK) {
      const rows = this.store.all<{ rid: number; vector: Uint8Array }>(
        `SELECT m.rid AS rid, e.vector AS vector
           FROM memories m CROSS JOIN embeddings e ON e.space = ? AND e.text_hash = m.embedding_hash
          WHERE m.rid > ? AND m.rid <= ? AND m.deleted_at IS NULL`,
        [this.space, lo, lo + StoredExactSearcher.CHUNK],
      );
      for (const r of rows) {
        const rid = Number(r.rid);
        if (filter && !filter(rid)) continue;
        for (let qi = 0; qi < queries.length; qi++) {
          const similarity = cosineWithBlob(queries[qi]!, norms[qi]!, r.vector, DIM);
          const top = tops[qi]!;
          if (similarity === undefined || (top.length === k && similarity <= top[k - 1]!.similarity)) continue;
          let i = top.length < k ? top.length : k - 1;
          while (i > 0 && top[i - 1]!.similarity < similarity) i--;
          top.splice(i, 0, { rid, similarity });
          if (top.length > k) top.pop();
        }
      }
    }
    return tops;
  }
  similarities(query: Float32Array, rids: number[]): Map<number, number> {
    return storedSimilarities(this.store, { space: this.space, dim: DIM }, query, rids);
  }
}

/** Exact top-k of each query over the float32 originals, streamed (one vector in memory at a time). */
function exactOverOriginals(size: number, clusters: number, queries: Float32Array[], k: number): number[][] {
  const qs = queries.map((q) => {
    const n = Math.sqrt(q.reduce((a, x) => a + x * x, 0));
    return q.map((x) => x / n);
  });
  const tops = qs.map(() => [] as { rid: number; s: number }[]);
  let rid = 0;
  for (const v of vectorStream(size, DIM, clusters, 42)) {
    rid++;
    let vv = 0;
    for (let j = 0; j < DIM; j++) vv += v[j]! * v[j]!;
    const inv = 1 / Math.sqrt(vv);
    for (let qi = 0; qi < qs.length; qi++) {
      const q = qs[qi]!;
      let d = 0;
      for (let j = 0; j < DIM; j++) d += q[j]! * v[j]!;
      const s = d * inv;
      const top = tops[qi]!;
      if (top.length === k && s <= top[k - 1]!.s) continue;
      let i = top.length < k ? top.length : k - 1;
      while (i > 0 && top[i - 1]!.s < s) i--;
      top.splice(i, 0, { rid, s });
      if (top.length > k) top.pop();
    }
  }
  return tops.map((t) => t.map((x) => x.rid));
}

/** Hands the search the query's precomputed vector: embedding is not part of search latency. */
class PrecomputedEmbedder implements Embedder {
  readonly id = 'bench:precomputed';
  readonly dimension = DIM;
  next: Float32Array | undefined;
  constructor(readonly space: string) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map(() => this.next!);
  }
  async available(): Promise<boolean> {
    return true;
  }
  dispose(): void {}
}

function makeQueries(size: number, count: number, seed: number): { text: string[]; common: string[] } {
  const vocab = vocabulary(20000);
  const rank = new Map(vocab.map((w, i) => [w, i]));
  const picks = new Set<number>();
  const r = new Rng(seed);
  while (picks.size < count) picks.add(r.int(size));
  const wanted = [...picks].sort((a, b) => a - b);
  const text: string[] = [];
  let i = 0;
  let w = 0;
  for (const m of syntheticMemories(size, 1)) {
    if (i++ !== wanted[w]) continue;
    w++;
    const words = m.content.split(' ').filter((x) => /^[a-z]+$/.test(x));
    const rare = [...new Set(words.filter((x) => (rank.get(x) ?? 0) >= 100))];
    const q = [rare[r.int(rare.length)] ?? words[0]!, rare[r.int(rare.length)] ?? words[1]!, words[r.int(words.length)]!];
    text.push(q.join(' '));
    if (w >= wanted.length) break;
  }
  const common = Array.from({ length: count }, () => [0, 1, 2].map(() => vocab[8 + r.int(30)]!).join(' '));
  return { text, common };
}

/**
 * Several searchers over the same queries, alternating per query (same load for each). Each
 * searcher first runs every query once untimed, so all start with the same warm caches (each
 * HybridSearch has its own document-frequency cache for dynamic stop-words; the default searcher
 * is otherwise warm from the earlier runs and the others are not).
 */
async function timeAlternating(
  searchers: HybridSearch[],
  emb: PrecomputedEmbedder,
  texts: string[],
  vecs: Float32Array[],
): Promise<number[][]> {
  for (let i = 0; i < texts.length; i++) {
    emb.next = vecs[i]!;
    for (const s of searchers) await s.search({ query: texts[i]! });
  }
  const times = searchers.map(() => [] as number[]);
  for (let i = 0; i < texts.length; i++) {
    emb.next = vecs[i]!;
    for (let j = 0; j < searchers.length; j++) {
      const r = await searchers[j]!.search({ query: texts[i]! });
      times[j]!.push(r.timings.searchMs);
    }
  }
  return times;
}

async function timeSearch(
  search: HybridSearch,
  emb: PrecomputedEmbedder,
  texts: string[],
  vecs: Float32Array[],
): Promise<{ times: number[] }> {
  const times: number[] = [];
  for (let i = 0; i < Math.min(30, texts.length); i++) {
    emb.next = vecs[i]!;
    await search.search({ query: texts[i]! }); // warm-up
  }
  for (let i = 0; i < texts.length; i++) {
    emb.next = vecs[i]!;
    const r = await search.search({ query: texts[i]! });
    times.push(r.timings.searchMs);
  }
  return { times };
}

/** The engine's search with whole hits, one read vs a read per hit, alternating per query (see SearchBenchResult). */
async function timeHitReads(
  store: Store,
  search: HybridSearch,
  emb: PrecomputedEmbedder,
  queries: { texts: string[]; vecs: Float32Array[] },
): Promise<{ whole: number[]; reread: number[] }> {
  const whole: number[] = [];
  const reread: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < queries.texts.length; i++) {
      emb.next = queries.vecs[i]!;
      const a = await search.search({ query: queries.texts[i]!, withContent: true });
      const b = await search.search({ query: queries.texts[i]! });
      const t0 = performance.now();
      for (const r of b.results) store.get('SELECT * FROM memories WHERE id = ?', [r.memory.id]);
      if (round === 0) continue; // the first round warms both
      whole.push(a.timings.searchMs);
      reread.push(b.timings.searchMs + performance.now() - t0);
    }
  }
  return { whole, reread };
}

/** Both ways of scoring 60 random rids per query, alternating, same rids (see SearchBenchResult). */
function timeSimilarities(
  store: Store,
  hnsw: HnswIndex,
  space: string,
  size: number,
  qvecs: Float32Array[],
): { getVector: number[]; sql: number[] } {
  const r = new Rng(11);
  const getVector: number[] = [];
  const sql: number[] = [];
  for (const q of qvecs) {
    const rids = Array.from({ length: 60 }, () => 1 + r.int(size));
    let t0 = performance.now();
    const viaIndex = new IndexVectorSearcher(hnsw, space).similarities(q, rids);
    getVector.push(performance.now() - t0);
    t0 = performance.now();
    const viaSql = storedSimilarities(store, { space, dim: DIM }, q, rids);
    sql.push(performance.now() - t0);
    for (const [rid, s] of viaIndex)
      if (Math.abs((viaSql.get(rid) ?? NaN) - s) > 1e-4) throw new Error(`similarities disagree for rid ${rid}`);
  }
  return { getVector, sql };
}

function ftsMatchCount(store: Store, texts: string[]): number[] {
  return texts
    .slice(0, 50)
    .map((t) =>
      Number(store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?', [ftsExpression(t)!])!.n),
    );
}

export async function runSearchBench(size: number, workDir: string): Promise<SearchBenchResult> {
  // Per process: engineers run this bench at the same time, and each run deletes its directory first.
  const dir = path.join(workDir, `search-${size}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const store = await Store.open({ dir });
  let closed = false;
  try {
    // Preload rows directly in big transactions (the write path is measured by store/write benches).
    let t = performance.now();
    const iso = new Date('2026-01-01T00:00:00Z').getTime();
    let batch: unknown[][] = [];
    const flush = () => {
      const rows = batch;
      batch = [];
      store.transaction((tx) => {
        for (const p of rows) {
          tx.run(
            'INSERT INTO memories (rid, id, project_id, type, title, content, normalized_content, content_hash, doc_hash, tags, importance, created_at, updated_at, embedding_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            p as never,
          );
        }
      });
    };
    let i = 0;
    for (const m of syntheticMemories(size, 1)) {
      const h = createHash('sha256').update(m.content).digest('hex');
      const at = new Date(iso + i * 1000).toISOString();
      batch.push([
        i + 1,
        randomUUID(),
        PROJECT,
        m.type,
        m.title,
        m.content,
        m.content.toLowerCase(),
        h,
        h,
        JSON.stringify(m.tags),
        m.importance,
        at,
        at,
        `v${i + 1}`,
      ]);
      i++;
      if (batch.length === 5000) flush();
    }
    if (batch.length) flush();
    const preloadMs = performance.now() - t;
    progress(`${size} memories preloaded in ${Math.round(preloadMs)} ms; RSS ${rssMb()} MB, peak ${peakRssMb()} MB`);
    // Merge FTS4 segments as the idle engine does after a bulk import.
    await store.compactFullTextIndex();

    // HNSW over the same vectors (rid = i + 1), built once and reused for every measurement;
    // the vectors are stored in `embeddings` too, as the engine does (the source of truth).
    const space = 'bench-512';
    const storeVectors = (first: number, blobs: Uint8Array[]) =>
      store.transaction((tx) => {
        blobs.forEach((b, j) =>
          tx.run('INSERT INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, ?)', [
            space,
            `v${first + j}`,
            DIM,
            b,
            '2026-01-01T00:00:00Z',
          ]),
        );
      });
    t = performance.now();
    const hnsw = await HnswIndex.create({ dim: DIM, M: 16, efConstruction: 100, efSearch: 64, initialCapacity: size });
    const clusters = Math.max(10, Math.round(size / 100));
    let labels: number[] = [];
    let vecs: Float32Array[] = [];
    let blobs: Uint8Array[] = [];
    let n = 0;
    const qvecs: Float32Array[] = [];
    for (const v of vectorStream(size + QUERIES, DIM, clusters, 42)) {
      // The last QUERIES draws are the queries: same clusters as the memories, not in the index.
      if (n >= size) {
        qvecs.push(v);
        continue;
      }
      labels.push(++n);
      const blob = vectorToBlob(v);
      blobs.push(blob);
      vecs.push(blobToVector(blob, DIM)!);
      if (labels.length === 2000) {
        hnsw.addMany(labels, vecs);
        storeVectors(labels[0]!, blobs);
        labels = [];
        vecs = [];
        blobs = [];
        if (n % 20000 === 0) progress(`HNSW ${n}/${size} (${Math.round((performance.now() - t) / 1000)} s)`);
      }
    }
    if (labels.length) {
      hnsw.addMany(labels, vecs);
      storeVectors(labels[0]!, blobs);
    }
    const buildMs = performance.now() - t;
    progress(`HNSW built in ${Math.round(buildMs / 1000)} s; RSS ${rssMb()} MB, peak ${peakRssMb()} MB`);

    const rssBeforeSearch = round(process.memoryUsage().rss / 1024 / 1024, 1);
    const { text, common } = makeQueries(size, QUERIES, 7);
    const emb = new PrecomputedEmbedder(space);
    const hybrid = new HybridSearch(store, { projectId: PROJECT, embedder: emb, vectors: new StoredVectorSearcher(store, hnsw, space) });
    const h = await timeSearch(hybrid, emb, text, qvecs);
    // Same run, alternating: the old similarity source (getVector per rid) and feedback off.
    const viaGetVector = new HybridSearch(store, { projectId: PROJECT, embedder: emb, vectors: new IndexVectorSearcher(hnsw, space) });
    const noFeedback = new HybridSearch(store, {
      projectId: PROJECT,
      embedder: emb,
      vectors: new StoredVectorSearcher(store, hnsw, space),
      settings: { feedbackDocs: 0 },
    });
    const unpruned = new HybridSearch(store, {
      projectId: PROJECT,
      embedder: emb,
      vectors: new StoredVectorSearcher(store, hnsw, space),
      settings: { fullTextPruning: false },
    });
    const [abDefault, abGetVector, abNoFeedback, abUnpruned] = await timeAlternating(
      [hybrid, viaGetVector, noFeedback, unpruned],
      emb,
      text.slice(0, 150),
      qvecs,
    );
    const [abCommon, abCommonUnpruned] = await timeAlternating([hybrid, unpruned], emb, common.slice(0, 100), qvecs);
    const hc = await timeSearch(hybrid, emb, common.slice(0, 100), qvecs);
    const hitReads = await timeHitReads(store, hybrid, emb, { texts: text.slice(0, 150), vecs: qvecs });
    const ann = qvecs.map((q) => {
      const t0 = performance.now();
      const r = hnsw.search(q, 10);
      return { ms: performance.now() - t0, r };
    });
    const rssAfterHnsw = rssMb();
    progress(`searches done; RSS ${rssAfterHnsw} MB, peak ${peakRssMb()} MB`);
    const sims = timeSimilarities(store, hnsw, space, size, qvecs);
    const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
    const dbBytes = Number(store.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')!.n);
    const embBytes = Number(store.get<{ n: number }>('SELECT sum(length(vector)) AS n FROM embeddings')!.n);
    const hnswHeap = (await loadHnswlib()).module.asm.memory.buffer.byteLength;

    // The engine's idle step: snapshot the store, save the index (both are part of its footprint).
    t = performance.now();
    await store.snapshot();
    const seq = Number(store.get<{ seq: number }>('SELECT seq FROM vector_seq WHERE id = 1')!.seq);
    await saveIndexFile(path.join(dir, 'vectors', `${space}.hnsw`), hnsw, { watermark: seq });
    const snapshotMs = performance.now() - t;
    const productPeak = peakRssMb();
    progress(`snapshot + index save in ${Math.round(snapshotMs)} ms; peak RSS so far ${productPeak} MB`);

    // The exact baselines, same data, same run: brute force over the stored rows, and over the
    // float32 originals (streamed) for the recall of ANN + int8 storage together.
    // Brute force per query costs ~7 µs per stored row (sql.js row reads): timed on 50 queries,
    // the recall truth of all of them computed in one pass over the rows.
    const exact = new StoredExactSearcher(store, space);
    const ex = qvecs.slice(0, 50).map((q) => {
      const t0 = performance.now();
      exact.search(q, 10);
      return { ms: performance.now() - t0 };
    });
    const exStored = exact.searchMany(qvecs, 10);
    t = performance.now();
    const exF32 = exactOverOriginals(size, clusters, qvecs, 10);
    progress(`exact over the float32 originals in ${Math.round(performance.now() - t)} ms`);
    const hybridExact = new HybridSearch(store, { projectId: PROJECT, embedder: emb, vectors: exact });
    const he = await timeSearch(hybridExact, emb, text.slice(0, 50), qvecs);

    const p50 = median(h.times);
    const ep50 = median(he.times);
    const result: Omit<SearchBenchResult, keyof ReturnType<typeof footprintAfterRestart>> = {
      memories: size,
      dim: DIM,
      queries: text.length,
      preload_ms: Math.round(preloadMs),
      hnsw_build_ms: Math.round(buildMs),
      hybrid_p50_ms: round(p50),
      hybrid_p99_ms: round(percentile(h.times, 99)),
      ab_default_p50_ms: round(median(abDefault!)),
      ab_getvector_similarities_p50_ms: round(median(abGetVector!)),
      ab_no_feedback_p50_ms: round(median(abNoFeedback!)),
      ab_default_p99_ms: round(percentile(abDefault!, 99)),
      ab_getvector_similarities_p99_ms: round(percentile(abGetVector!, 99)),
      ab_no_feedback_p99_ms: round(percentile(abNoFeedback!, 99)),
      ab_fulltext_unpruned_p50_ms: round(median(abUnpruned!)),
      ab_fulltext_unpruned_p99_ms: round(percentile(abUnpruned!, 99)),
      ab_hits_whole_p50_ms: round(median(hitReads.whole)),
      ab_hits_reread_p50_ms: round(median(hitReads.reread)),
      ab_common_terms_p50_ms: round(median(abCommon!)),
      ab_common_terms_unpruned_p50_ms: round(median(abCommonUnpruned!)),
      hybrid_exact_baseline_p50_ms: round(ep50),
      hybrid_exact_baseline_p99_ms: round(percentile(he.times, 99)),
      hybrid_speedup_vs_exact_p50: round(ep50 / p50, 2),
      fts_matches_p50: median(ftsMatchCount(store, text)),
      common_terms_hybrid_p50_ms: round(median(hc.times)),
      common_terms_fts_matches_p50: median(ftsMatchCount(store, common)),
      ann_p50_ms: round(median(ann.map((a) => a.ms))),
      ann_p99_ms: round(
        percentile(
          ann.map((a) => a.ms),
          99,
        ),
      ),
      exact_p50_ms: round(median(ex.map((a) => a.ms))),
      exact_p99_ms: round(
        percentile(
          ex.map((a) => a.ms),
          99,
        ),
      ),
      ann_recall_at_10: round(
        recallAtK(
          ann.map((a) => a.r),
          exStored,
        ),
        4,
      ),
      ann_recall_at_10_vs_float32: round(
        recallAtK(
          ann.map((a) => a.r),
          exF32,
        ),
        4,
      ),
      rss_before_search_mb: rssBeforeSearch,
      rss_after_hnsw_mb: rssAfterHnsw,
      db_mb: mb(dbBytes),
      embeddings_mb: mb(embBytes),
      hnsw_heap_mb: mb(hnswHeap),
      snapshot_and_save_ms: Math.round(snapshotMs),
      similarities_getvector_p50_ms: round(median(sims.getVector)),
      similarities_sql_p50_ms: round(median(sims.sql)),
      peak_rss_mb: productPeak,
      peak_rss_with_baseline_mb: peakRssMb(),
    };
    // The same store and index after a restart, in a process of its own (the store must be closed: one owner).
    await store.close({ snapshot: false });
    closed = true;
    return { ...result, ...footprintAfterRestart(dir, space, text, qvecs, workDir) };
  } finally {
    if (!closed) await store.close({ snapshot: false });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const size = Number(process.argv[2] ?? 10_000);
  runSearchBench(size, path.resolve(__dirname, '..', '.bench')).then(
    (r) => process.stdout.write(JSON.stringify(r, null, 2) + '\n'),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
}
