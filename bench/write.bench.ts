/**
 * Write-path benchmark at one size: durable create WITH embedding and vector-index update
 * (hash embedder, 512-d; embedding time reported separately), the smart store (the same plus
 * a neighbour search and the consolidation decision), index save/load time and file size,
 * catch-up of 1,000 writes made after the last index save, and a full background rebuild.
 * Run standalone: `node --import tsx bench/write.bench.ts 10000`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../src/core/store/store';
import { MemoryService } from '../src/core/memory/memoryService';
import { embedMemoryText } from '../src/core/memory/embedOnWrite';
import { embeddingTextForInput } from '../src/core/memory/embedding';
import { embedTextHash } from '../src/core/embed/cache';
import { HashEmbedder } from '../src/core/embed/hashEmbedder';
import { VectorStore } from '../src/core/vectorstore/vectorStore';
import { ActiveSpace } from '../src/core/vectorstore/activeSpace';
import { SmartStore } from '../src/core/consolidation/smartStore';
import type { CreateMemoryInput } from '../src/core/memory/types';
import { syntheticMemories } from './corpus';
import { mean, peakRssMb, percentile, round } from './stats';

export interface WriteBenchResult {
  memories: number;
  dimension: number;
  preload_ms: number;
  /** Open with no index file: until searches are answered (exact index loaded from the DB). */
  rebuild_exact_ready_ms: number;
  /** Full HNSW rebuild in the background (batches yielding to the event loop). */
  rebuild_ms: number;
  create_samples: number;
  /** prepare + one durable transaction (row + FTS + embeddings row + history) + index sync; excludes embedding. */
  create_p50_ms: number;
  create_p99_ms: number;
  create_mean_ms: number;
  /** The durable transaction alone (row + FTS + embeddings row + history, fsync). */
  create_tx_p50_ms: number;
  /** The HNSW insert alone (VectorStore.sync after the commit). */
  index_update_p50_ms: number;
  index_update_p99_ms: number;
  embed_p50_ms: number;
  embed_p99_ms: number;
  /** Smart store (embed excluded): neighbour search, decision, transaction, index sync. */
  smart_store_p50_ms: number;
  smart_store_p99_ms: number;
  smart_store_merged: number;
  index_save_ms: number;
  index_file_bytes: number;
  /** Open from the file with nothing to catch up. */
  index_load_ms: number;
  catchup_writes: number;
  /** Open from the file + catch-up of the writes made after the save (inline, open waits). */
  index_load_with_catchup_ms: number;
  /** The same tail with the default settings: open returns at once (exact search answers)… */
  background_catchup_open_ms: number;
  /** …and HNSW is caught up in the background after this long. */
  background_catchup_ready_ms: number;
  caught_up_changes: number;
  peak_rss_mb: number;
}

const progress = (s: string) => process.stderr.write(`  [write] ${s}\n`);
const DIM = 512;
const PROJECT = 'bench/project';

export async function runWriteBench(size: number, workDir: string): Promise<WriteBenchResult> {
  const dir = path.join(workDir, `write-${size}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const embedder = new HashEmbedder({ dimension: DIM });
  const corpus = [...syntheticMemories(size + 2600, 3)].map((m): CreateMemoryInput => ({ ...m, allowNearDuplicate: true }));
  const preloadItems = corpus.slice(0, size);
  const sampleItems = corpus.slice(size, size + 300);
  const smartItems = corpus.slice(size + 300, size + 600);
  const catchupItems = corpus.slice(size + 600, size + 1600);

  // 1. Preload with vectors, in batched transactions (import path).
  let t = performance.now();
  const store = await Store.open({ dir });
  const svc = new MemoryService(store, { projectId: PROJECT });
  await insertWithVectors(store, svc, embedder, preloadItems);
  await store.snapshot();
  const preloadMs = performance.now() - t;
  progress(`preloaded ${size} in ${Math.round(preloadMs)} ms`);

  // 2. No index file: exact index answers at once, HNSW rebuilt in the background.
  t = performance.now();
  let vectors = await VectorStore.open({ store, space: embedder.space, dimension: DIM });
  const exactReadyMs = performance.now() - t;
  await vectors.whenReady();
  const rebuildMs = performance.now() - t;
  if (vectors.size !== size) throw new Error(`rebuilt index holds ${vectors.size}, expected ${size}`);
  progress(`rebuild ${Math.round(rebuildMs)} ms (exact ready after ${Math.round(exactReadyMs)} ms)`);

  // 3. Durable create with embedding + index update.
  const space = new ActiveSpace(embedder, vectors);
  const createMs: number[] = [];
  const embedMs: number[] = [];
  const txMs: number[] = [];
  const syncMs: number[] = [];
  for (const input of sampleItems) {
    const t0 = performance.now();
    const prepared = svc.prepareCreate(input);
    if (prepared.status !== 'new') throw new Error(`sample not new: ${prepared.status}`);
    const t1 = performance.now();
    const emb = await embedMemoryText(embedder, store, prepared.record.title, prepared.record.content);
    const t2 = performance.now();
    if (!emb.ok) throw new Error(emb.error);
    store.transaction((tx) => svc.insertPreparedInTx(tx, prepared, input, { embedding: emb.embedding }));
    const tc = performance.now();
    vectors.sync();
    const t3 = performance.now();
    txMs.push(tc - t2);
    syncMs.push(t3 - tc);
    createMs.push(t1 - t0 + (t3 - t2));
    embedMs.push(t2 - t1);
  }
  progress(`create p50 ${round(percentile(createMs, 50))} ms`);

  // 4. Smart store (embedding time subtracted using the same embedder's measured cost per call).
  const smart = new SmartStore({ store, memory: svc, space });
  const smartMs: number[] = [];
  let merged = 0;
  for (const input of smartItems) {
    const te = performance.now();
    await embedder.embed([embeddingTextForInput(input as { content: string; title?: string })], 'document');
    const oneEmbed = performance.now() - te;
    const t0 = performance.now();
    const r = await smart.save(input);
    smartMs.push(Math.max(0, performance.now() - t0 - oneEmbed));
    if (r.action === 'merged') merged++;
  }

  // 5. Save, load, catch-up.
  t = performance.now();
  const info = await vectors.save();
  const saveMs = performance.now() - t;
  if (!info) throw new Error('index was not saved');
  await vectors.close({ save: false });
  t = performance.now();
  vectors = await VectorStore.open({ store, space: embedder.space, dimension: DIM });
  const loadMs = performance.now() - t;
  if (vectors.stats().openedFrom !== 'file') throw new Error(`expected a load from file: ${vectors.stats().rebuildReason}`);
  await vectors.close({ save: false });
  await insertWithVectors(store, svc, embedder, catchupItems, 1);
  t = performance.now();
  vectors = await VectorStore.open({ store, space: embedder.space, dimension: DIM, inlineCatchUpMax: Infinity });
  const catchupMs = performance.now() - t;
  const caught = vectors.stats().caughtUp;
  if (vectors.stats().openedFrom !== 'file') throw new Error(`expected a load from file: ${vectors.stats().rebuildReason}`);
  await vectors.close({ save: false });
  t = performance.now();
  vectors = await VectorStore.open({ store, space: embedder.space, dimension: DIM });
  const bgOpenMs = performance.now() - t;
  if (!vectors.stats().backgroundCatchUp) throw new Error('expected a background catch-up');
  await vectors.whenReady();
  const bgReadyMs = performance.now() - t;
  if (vectors.stats().rebuildReason) throw new Error(`rebuilt instead: ${vectors.stats().rebuildReason}`);
  await vectors.close();
  await store.close();
  progress(`save ${Math.round(saveMs)} ms, load ${Math.round(loadMs)} ms, load+catch-up ${Math.round(catchupMs)} ms`);

  return {
    memories: size,
    dimension: DIM,
    preload_ms: round(preloadMs, 1),
    rebuild_exact_ready_ms: round(exactReadyMs, 1),
    rebuild_ms: round(rebuildMs, 1),
    create_samples: createMs.length,
    create_p50_ms: round(percentile(createMs, 50)),
    create_p99_ms: round(percentile(createMs, 99)),
    create_mean_ms: round(mean(createMs)),
    create_tx_p50_ms: round(percentile(txMs, 50)),
    index_update_p50_ms: round(percentile(syncMs, 50)),
    index_update_p99_ms: round(percentile(syncMs, 99)),
    embed_p50_ms: round(percentile(embedMs, 50)),
    embed_p99_ms: round(percentile(embedMs, 99)),
    smart_store_p50_ms: round(percentile(smartMs, 50)),
    smart_store_p99_ms: round(percentile(smartMs, 99)),
    smart_store_merged: merged,
    index_save_ms: round(saveMs, 1),
    index_file_bytes: info.fileBytes,
    index_load_ms: round(loadMs, 1),
    catchup_writes: catchupItems.length,
    index_load_with_catchup_ms: round(catchupMs, 1),
    caught_up_changes: caught,
    background_catchup_open_ms: round(bgOpenMs, 1),
    background_catchup_ready_ms: round(bgReadyMs, 1),
    peak_rss_mb: peakRssMb(),
  };
}

/** Embeds outside, then writes memories with their vectors in transactions of `batch`. */
async function insertWithVectors(
  store: Store,
  svc: MemoryService,
  embedder: HashEmbedder,
  items: CreateMemoryInput[],
  batch = 1000,
): Promise<void> {
  for (let i = 0; i < items.length; i += batch) {
    const slice = items.slice(i, i + batch);
    const texts = slice.map((m) => embeddingTextForInput(m as { content: string; title?: string }));
    const vecs = await embedder.embed(texts, 'document');
    store.transaction((tx) => {
      slice.forEach((m, j) => {
        svc.createInTx(tx, m, { embedding: { space: embedder.space, textHash: embedTextHash(texts[j]!), vector: vecs[j]! } });
      });
    });
  }
}

if (require.main === module) {
  const size = Number(process.argv[2] ?? 1000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'am-write-bench-'));
  runWriteBench(size, work)
    .then((r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      fs.rmSync(work, { recursive: true, force: true });
    })
    .catch((e: unknown) => {
      process.stderr.write(String((e as { stack?: unknown } | undefined)?.stack ?? e) + '\n');
      process.exit(1);
    });
}
