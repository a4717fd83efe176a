// LoCoMo through the product's read path: one real store per sample (sql.js + op log on disk
// under the harness's work dir), every turn one memory, FTS4/porter via the schema's triggers,
// vectors stored as the engine stores them (the `embeddings` table, compact int8 rows) and searched
// through a VectorStore (HNSW synced from that table, exact similarities read from it), HybridSearch
// on top. LOCOMO_FLOAT32_BLOBS=1 stores the rows as float32 instead (the format of older versions),
// to measure what the compact format costs in recall.
//
// Questions go through the engine's search service (src/engine/worker/services/search.ts), over the
// sample's store as the project store and an empty global store: the relevance floor, the
// ranking across both stores and the hit hydration are the engine's own.
//
// Turns are inserted as rows directly (not through MemoryService.create): the benchmark counts
// every turn as a memory, while the write path would skip filler ("Cute!") and near-duplicates
// and give them a TTL. What is measured is retrieval, with the same schema, FTS, bm25, filters
// and fusion code the engine runs.
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../src/core/store/store';
import type { Embedder } from '../../src/core/embed/types';
import { HybridSearch } from '../../src/core/search/hybrid';
import { defaultConfig } from '../../src/core/config';
import { SearchService, type SearchableStore } from '../../src/engine/worker/services/search';
import { VectorStore } from '../../src/core/vectorstore/vectorStore';
import { vectorToBlob, vectorToFloat32Blob } from '../../src/core/vectorstore/blob';
import type { SearchSettings } from '../../src/core/search/types';
import { PerSampleRetriever, type RetrieverContext, type RetrieverDoc } from './retriever';
import { parseSessionDate } from './sessionDate';
import { embeddingText } from '../../src/core/memory/embedding';
import { timeRefsOf } from '../../src/core/text/timeRefs';

/**
 * How turns are stored (docs/recall.md "What a memory is indexed with"): `context` — the previous
 * turn of the same session as the turn's search context, indexed by the keyword leg ('fts') and
 * also embedded with it ('embed'), or not at all ('none'); `speaker` — the turn's speaker as its
 * speaker field; `timeRefs` — the days its text refers to, resolved against the session date.
 * LOCOMO_TURNS='{"context":"fts"}' overrides them for experiments.
 */
export interface TurnOptions {
  context: 'none' | 'fts' | 'embed';
  speaker: boolean;
  timeRefs: boolean;
}

export const TURN_DEFAULTS: TurnOptions = {
  // 'fts', as the write path does: embedding the previous turn with each turn ('embed') diluted
  // the turn's own meaning — on the dev half category 3 recall_any@10 fell from 0.593 to 0.508 and
  // category 1 recall_all@10 from 0.232 to 0.192 against 'fts' (bench/RESULTS-recall.md).
  context: 'fts',
  speaker: true,
  timeRefs: true,
  ...(JSON.parse(process.env.LOCOMO_TURNS ?? '{}') as Partial<TurnOptions>),
};

/** Per turn: its search context, speaker, whether its time refs are stored and its vector embeds the context. */
export function withTurnContext(
  docs: readonly RetrieverDoc[],
  o: TurnOptions,
): { searchContext: string; speaker: string | null; timeRefs: boolean; embedContext: boolean }[] {
  return docs.map((d, i) => {
    const prev = i > 0 && docs[i - 1]!.session === d.session ? docs[i - 1]!.text : '';
    return {
      searchContext: o.context === 'none' ? '' : prev,
      speaker: o.speaker ? (d.speaker ?? null) : null,
      timeRefs: o.timeRefs,
      embedContext: o.context === 'embed' && prev !== '',
    };
  });
}

const PROJECT = 'locomo';

export interface EngineRetrieverOptions {
  /** Makes the embedder for this config (undefined = full-text only). */
  embedder?: () => Embedder | Promise<Embedder>;
  settings?: Partial<SearchSettings>;
  /** How turns are stored (default TURN_DEFAULTS). */
  turns?: TurnOptions;
  /** Sees every answer (calibrate.ts): the query and its hits as dia ids with their cosine and matched words. */
  inspect?: (query: string, hits: { diaId: string; similarity?: number; matchedTerms: string[] }[]) => void;
}

interface SampleStore {
  sampleId: string;
  store: Store;
  /** The empty global store next to it. */
  global: Store;
  search: SearchService;
  idOf: Map<string, string>;
  vectors?: VectorStore;
}

/** A store as the engine's search service sees it (a StoreRuntime's search, memory and name). */
function searchable(name: 'project' | 'global', search: HybridSearch): SearchableStore {
  return { name, search: (req) => search.search(req) };
}

/** Embeddings computed once per process, shared by every config with the same space. */
const embedCache = new Map<string, Float32Array>();

/**
 * Optional on-disk copy of that cache (LOCOMO_EMBED_CACHE=<dir>): USE-lite takes minutes for
 * the 2,960 turns, so repeated measurements reuse its vectors. Off unless the variable is set.
 */
const diskDir = process.env.LOCOMO_EMBED_CACHE;
const diskLoaded = new Set<string>();
const dirty = new Set<string>();

function diskFile(space: string): string {
  return path.join(diskDir!, `${space}.json`);
}

function loadDisk(space: string): void {
  if (!diskDir || diskLoaded.has(space)) return;
  diskLoaded.add(space);
  if (!fs.existsSync(diskFile(space))) return;
  const data = JSON.parse(fs.readFileSync(diskFile(space), 'utf8')) as Record<string, number[]>;
  for (const [k, v] of Object.entries(data)) embedCache.set(k, Float32Array.from(v));
}

function saveDisk(space: string): void {
  if (!diskDir) return;
  fs.mkdirSync(diskDir, { recursive: true });
  const prefix = `${space}\u0000`;
  const out: Record<string, number[]> = {};
  for (const [k, v] of embedCache) if (k.startsWith(prefix)) out[k] = Array.from(v);
  fs.writeFileSync(diskFile(space), JSON.stringify(out));
}

async function embedAll(embedder: Embedder, texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
  // The static query embedder shares USE-lite's space but not its query vectors (it costs nothing: no cache).
  if (kind === 'query' && embedder.id.includes('static')) return embedder.embed(texts, kind);
  const key = (t: string) => `${embedder.space}\u0000${kind}\u0000${t}`;
  loadDisk(embedder.space);
  const todo = [...new Set(texts.filter((t) => !embedCache.has(key(t))))];
  for (let i = 0; i < todo.length; i += 64) {
    const batch = todo.slice(i, i + 64);
    const vecs = await embedder.embed(batch, kind);
    batch.forEach((t, j) => embedCache.set(key(t), vecs[j]!));
  }
  if (todo.length) dirty.add(embedder.space);
  return texts.map((t) => embedCache.get(key(t))!);
}

/** An Embedder that answers queries from the shared cache (the search asks it for kind 'query'). */
export function cachedQueries(inner: Embedder): Embedder {
  return {
    id: inner.id,
    space: inner.space,
    dimension: inner.dimension,
    embed: (texts, kind) => embedAll(inner, texts, kind),
    available: () => inner.available(),
    dispose: () => inner.dispose(),
  };
}

/**
 * LOCOMO_DUMP=<file>: every answer (questions and off-topic queries) as one JSON line — sample,
 * query, and per hit its dia id, relevance, cosine, matched words and evidence — to compare two
 * runs question by question (which questions a change won or lost, which off-topic queries it
 * let through and on what).
 */
const dumpFile = process.env.LOCOMO_DUMP;

type DumpedHit = { memory: { id: string }; relevance?: number; similarity?: number; matchedTerms?: string[]; evidence?: unknown };

function dumpAnswer(s: SampleStore, query: string, hits: readonly DumpedHit[]): void {
  const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1000) / 1000);
  const line = {
    sample: s.sampleId,
    query,
    hits: hits.map((h) => ({
      id: s.idOf.get(h.memory.id),
      rel: round(h.relevance),
      cos: round(h.similarity),
      terms: h.matchedTerms,
      ev: h.evidence,
    })),
  };
  fs.appendFileSync(dumpFile!, JSON.stringify(line) + '\n');
}

export class EngineRetriever extends PerSampleRetriever<SampleStore> {
  private embedder: Embedder | undefined;

  private constructor(
    name: string,
    private readonly ctx: RetrieverContext,
    private readonly opts: EngineRetrieverOptions,
  ) {
    super(name);
  }

  static async create(name: string, ctx: RetrieverContext, opts: EngineRetrieverOptions): Promise<EngineRetriever> {
    const r = new EngineRetriever(name, ctx, opts);
    if (opts.embedder) r.embedder = cachedQueries(await opts.embedder());
    return r;
  }

  protected async open(sampleId: string, docs: RetrieverDoc[]): Promise<SampleStore> {
    const store = await Store.open({ dir: path.join(this.ctx.workDir, sampleId.replace(/[^\w.-]+/g, '_')) });
    const idOf = new Map<string, string>();
    const ridOf = new Map<string, number>();
    const turns = withTurnContext(docs, this.opts.turns ?? TURN_DEFAULTS);
    store.transaction((tx) => {
      docs.forEach((d, i) => {
        // Session time + turn order, so "newer" means later in the conversation.
        const base = parseSessionDate(d.date)?.getTime() ?? Date.UTC(2000, 0, 1);
        const iso = new Date(base + i * 1000).toISOString();
        const id = randomUUID();
        const hash = createHash('sha256').update(`${d.id}\u0000${d.text}`).digest('hex');
        const t = turns[i]!;
        tx.run(
          `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, metadata_json, embedding_status,
             search_context, speaker, time_refs, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
          [
            id,
            PROJECT,
            d.text,
            d.text.toLowerCase(),
            hash,
            hash,
            JSON.stringify({ diaId: d.id, date: d.date }),
            t.searchContext,
            t.speaker,
            t.timeRefs ? timeRefsOf(d.text, iso) : '[]',
            iso,
            iso,
          ],
        );
        idOf.set(id, d.id);
        ridOf.set(d.id, Number(tx.get<{ rid: number }>('SELECT rid FROM memories WHERE id = ?', [id])!.rid));
      });
    });
    let vectors: VectorStore | undefined;
    if (this.embedder) {
      const texts = docs.map((d, i) => (turns[i]!.embedContext ? embeddingText('', d.text, turns[i]!.searchContext) : d.text));
      const vecs = await embedAll(this.embedder, texts, 'document');
      const space = this.embedder.space;
      const toBlob = process.env.LOCOMO_FLOAT32_BLOBS === '1' ? vectorToFloat32Blob : vectorToBlob;
      store.transaction((tx) => {
        docs.forEach((d, i) => {
          const textHash = createHash('sha256').update(texts[i]!).digest('hex');
          tx.run(
            "INSERT OR IGNORE INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, '2026-01-01T00:00:00.000Z')",
            [space, textHash, vecs[i]!.length, toBlob(vecs[i]!)],
          );
          tx.run("UPDATE memories SET embedding_hash = ?, embedding_status = 'ready', embedding_version = ? WHERE rid = ?", [
            textHash,
            space,
            ridOf.get(d.id)!,
          ]);
        });
      });
      vectors = await VectorStore.open({ store, space, dimension: this.embedder.dimension });
      await vectors.whenReady();
    }
    const settings = this.opts.settings;
    const project = searchable('project', new HybridSearch(store, { projectId: PROJECT, embedder: this.embedder, vectors, settings }));
    const global = await Store.open({ dir: path.join(this.ctx.workDir, `${sampleId.replace(/[^\w.-]+/g, '_')}-global`) });
    const both = [project, searchable('global', new HybridSearch(global, { projectId: PROJECT, settings }))];
    const search = new SearchService({
      config: defaultConfig(),
      stores: { forScope: (scope) => both.filter((b) => scope === undefined || b.name === scope) },
      warn: () => undefined,
    });
    return { sampleId, store, global, search, idOf, vectors };
  }

  protected async query(s: SampleStore, query: string, k: number): Promise<string[]> {
    const r = await s.search.search({ query, limit: k, recordAccess: false });
    this.opts.inspect?.(
      query,
      r.hits.map((h) => ({ diaId: s.idOf.get(h.memory.id)!, similarity: h.similarity, matchedTerms: h.matchedTerms })),
    );
    if (dumpFile) dumpAnswer(s, query, r.hits);
    return r.hits.map((x) => s.idOf.get(x.memory.id)!);
  }

  protected async dispose(s: SampleStore): Promise<void> {
    await s.vectors?.close({ save: false });
    await s.store.close({ snapshot: false });
    await s.global.close({ snapshot: false });
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      if (this.embedder && dirty.delete(this.embedder.space)) saveDisk(this.embedder.space);
      this.embedder?.dispose();
    }
  }
}
