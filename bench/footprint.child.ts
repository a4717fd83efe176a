/**
 * The product's memory footprint after a restart, in a process of its own (spawned by
 * bench/search.bench.ts on the store and index it built and saved): open the store from its
 * snapshot and the vector index from its file as the engine does (Store.open, VectorStore.open),
 * run the bench's queries through one HybridSearch, commit a write, take a snapshot and save the
 * index. Nothing of the benchmark's own (corpus, A/B searchers, baselines) is in this process.
 *
 *   node --import tsx bench/footprint.child.ts <storeDir> <space> <queries.json>
 * prints one JSON object: { open_ms, rss_after_open_mb, rss_after_search_mb, peak_rss_mb, ... }.
 */
import * as fs from 'node:fs';
import { Store } from '../src/core/store/store';
import { VectorStore } from '../src/core/vectorstore/vectorStore';
import { HybridSearch } from '../src/core/search/hybrid';
import type { Embedder } from '../src/core/embed/types';
import { peakRssMb, round } from './stats';

export interface FootprintResult {
  open_ms: number;
  /** How the index came up: 'file' (loaded + caught up) is the normal restart. */
  index_opened_from: string;
  rss_after_open_mb: number;
  rss_after_search_mb: number;
  snapshot_from: string;
  /** Peak RSS of the whole process: open, searches, a write, snapshot, index save. */
  peak_rss_mb: number;
}

const rss = () => round(process.memoryUsage().rss / 1024 / 1024, 1);
/** Stages on stderr: RSS now and the peak so far. */
const stage = (name: string) => process.stderr.write(`  [footprint] ${name}: RSS ${rss()} MB, peak ${peakRssMb()} MB\n`);

async function main(dir: string, space: string, queriesFile: string): Promise<FootprintResult> {
  const q = JSON.parse(fs.readFileSync(queriesFile, 'utf8')) as { projectId: string; texts: string[]; vectors: number[][] };
  const vectors = q.vectors.map((v) => Float32Array.from(v));
  const t0 = performance.now();
  const store = await Store.open({ dir });
  stage('store open');
  const vs = await VectorStore.open({ store, space, dimension: vectors[0]!.length });
  await vs.whenReady();
  const openMs = performance.now() - t0;
  stage('index open');
  const afterOpen = rss();
  let next: Float32Array = vectors[0]!;
  const embedder: Embedder = {
    id: 'bench:precomputed',
    space,
    dimension: next.length,
    embed: async (texts) => texts.map(() => next),
    available: async () => true,
    dispose: () => undefined,
  };
  const search = new HybridSearch(store, { projectId: q.projectId, embedder, vectors: vs });
  for (let i = 0; i < q.texts.length; i++) {
    next = vectors[i % vectors.length]!;
    await search.search({ query: q.texts[i]! });
  }
  const afterSearch = rss();
  stage('searched');
  // A write (its vector changes too, so the index has something to save), then the idle step.
  const other =
    store.get<{ h: string }>('SELECT embedding_hash AS h FROM memories WHERE rid = 1')?.h ===
    store.get<{ h: string }>('SELECT embedding_hash AS h FROM memories WHERE rid = 2')?.h
      ? 3
      : 2;
  store.transaction((tx) =>
    tx.run('UPDATE memories SET embedding_hash = (SELECT embedding_hash FROM memories WHERE rid = ?) WHERE rid = 1', [other]),
  );
  vs.sync();
  stage('written');
  await store.snapshot();
  stage('snapshot');
  await vs.save();
  stage('index saved');
  const snapshotFrom = String(store.stats().lastSnapshotFrom);
  const openedFrom = vs.stats().openedFrom;
  await vs.close({ save: false });
  await store.close({ snapshot: false });
  return {
    open_ms: Math.round(openMs),
    index_opened_from: openedFrom,
    rss_after_open_mb: afterOpen,
    rss_after_search_mb: afterSearch,
    snapshot_from: snapshotFrom,
    peak_rss_mb: peakRssMb(),
  };
}

if (require.main === module) {
  const [dir, space, queries] = process.argv.slice(2);
  main(dir!, space!, queries!).then(
    (r) => process.stdout.write(JSON.stringify(r) + '\n'),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
}
