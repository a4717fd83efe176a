/**
 * The coding-memory benchmark (bench/coding/README.md): the 40 memories of dataset.ts written
 * through the product's write path into a real store, then every question asked through the
 * engine's search service (relevance floor, ranking across the project and global stores).
 *
 *   node --import tsx bench/coding/run.ts [--json] [--configs use,hash,fts]
 *
 * Reports per config:
 *   offtopic_with_results   share of the 100 everyday questions that return anything (target ≤ 0.05)
 *   paraphrase_top1/3/10    share of the 40 no-shared-word questions whose answer is in the top k
 *   direct_top1/3/10        the same for the 40 questions that name what they look for
 *   monotonic               share of answers with ≥ 2 hits whose shown relevance never rises down the list
 *   inversions              adjacent pairs where it rises, over all answers
 *
 * CODING_EXP='{"vectorFloor":0.4}' with --configs use-exp runs the default with search settings
 * overridden (any SearchSettings key), for experiments without a code change.
 *
 * Query expansion through Ollama (docs/recall.md "Query expansion"), measured apart from the
 * offline default: CODING_OLLAMA='{"url":"http://127.0.0.1:11434","model":"qwen3:4b","timeoutMs":1500}'
 * with --configs use-ollama. `ask_ms_mean` / `ask_ms_p95` (every config) are the time of one
 * search through the service, `expansion_warnings` the searches whose expansion was skipped.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { Store } from '../../src/core/store/store';
import { MemoryService } from '../../src/core/memory/memoryService';
import { HybridSearch } from '../../src/core/search/hybrid';
import { VectorStore } from '../../src/core/vectorstore/vectorStore';
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { UseLiteEmbedder } from '../../src/core/embed/useLite';
import type { Embedder } from '../../src/core/embed/types';
import type { SearchSettings } from '../../src/core/search/types';
import { embeddingFor, factEmbeddingText, prepareEmbeddings } from '../../src/core/memory/prepareEmbeddings';
import { defaultConfig } from '../../src/core/config';
import { SearchService, type SearchableStore } from '../../src/engine/worker/services/search';
import type { SearchHit } from '../../src/engine/protocol';
import { ollamaProviderFromConfig } from '../../src/core/llm/ollamaProvider';
import { useStatic } from '../locomo/configs';
import { DIRECT, MEMORIES, OFF_TOPIC, PARAPHRASES, type AnsweredQuestion } from './dataset';

const PROJECT = 'github.com/example/shop';

export interface CodingConfig {
  description: string;
  embedder?: () => Embedder;
  settings?: Partial<SearchSettings>;
  /** Query expansion through an Ollama model (CODING_OLLAMA). */
  expansion?: { url: string; model: string; timeoutMs: number };
}

function ollamaExpansion(): CodingConfig['expansion'] {
  const o = JSON.parse(process.env.CODING_OLLAMA ?? '{}') as Partial<NonNullable<CodingConfig['expansion']>>;
  return { url: o.url ?? 'http://127.0.0.1:11434', model: o.model ?? 'qwen3:4b', timeoutMs: o.timeoutMs ?? 1500 };
}

export const CODING_CONFIGS: Record<string, CodingConfig> = {
  use: { description: 'product default: full text + built-in USE-lite', embedder: () => new UseLiteEmbedder() },
  'use-static': {
    description: 'full text + USE-lite for memories, the distilled static table for queries (bench/student)',
    embedder: useStatic,
  },
  hash: { description: 'full text + hash embedder (512-d)', embedder: () => new HashEmbedder({ dimension: 512 }) },
  fts: { description: 'full text only (no embedder)' },
  'use-exp': {
    description: 'product default with the search settings in CODING_EXP',
    embedder: () => new UseLiteEmbedder(),
    settings: JSON.parse(process.env.CODING_EXP ?? '{}') as Partial<SearchSettings>,
  },
  'use-ollama': {
    description: 'product default plus query expansion through the Ollama model in CODING_OLLAMA',
    embedder: () => new UseLiteEmbedder(),
    get expansion() {
      return ollamaExpansion();
    },
  },
};

export interface CodingReport {
  offtopic_queries: number;
  offtopic_with_results: number;
  /** Mean number of results an off-topic question got. */
  offtopic_mean_results: number;
  paraphrase_top1: number;
  paraphrase_top3: number;
  paraphrase_top10: number;
  direct_top1: number;
  direct_top3: number;
  direct_top10: number;
  /** Share of answers with at least two hits whose shown relevance never rises down the list. */
  monotonic: number;
  inversions: number;
  /** The off-topic questions that returned something, with their first hit (to read, not to tune on). */
  offtopic_examples: { query: string; results: number; first: string; relevance: number; matched: string[] }[];
  /** Paraphrases whose answer was not in the top 3: the rank found (0 = not returned). */
  paraphrase_misses: { query: string; rank: number }[];
  /**
   * The share of paraphrases whose answer is in the top 3 by the query's cosine alone, over all
   * memories: the ceiling of paraphrase_top3 with these vectors (a paraphrase shares no word with its
   * answer, so words can only lift other memories above it).
   */
  paraphrase_top3_cosine: number;
  /** One search through the service (ms): mean and 95th percentile over every question. */
  ask_ms_mean: number;
  ask_ms_p95: number;
  /** Searches whose query expansion was skipped (timeout, error), with use-ollama. */
  expansion_warnings: number;
}

interface Bench {
  ask(query: string): Promise<SearchHit[]>;
  keyOf: Map<string, string>;
  askMs: number[];
  expansionWarnings: () => number;
  /** The rank of `key` among all memories by the query's cosine alone (0: no vectors). */
  cosineRank(query: string, key: string): Promise<number>;
  close(): Promise<void>;
}

/** The 40 memories through MemoryService.create (validation, skip rules, one transaction), each with its vector. */
async function openBench(cfg: CodingConfig, workDir: string): Promise<Bench> {
  const store = await Store.open({ dir: path.join(workDir, 'project') });
  const global = await Store.open({ dir: path.join(workDir, 'global') });
  const memory = new MemoryService(store, { projectId: PROJECT });
  const embedder = cfg.embedder?.();
  const warnings: string[] = [];
  const prepared = await prepareEmbeddings(
    embedder,
    MEMORIES.map((m) => factEmbeddingText(m.content)),
    warnings,
  );
  if (warnings.length) throw new Error(warnings.join('; '));
  const keyOf = new Map<string, string>();
  for (const m of MEMORIES) {
    const embedding = embeddingFor(prepared, m.content);
    const r = memory.create({ content: m.content, type: m.type, agentSource: 'bench' }, embedding ? { embedding } : {});
    if (r.status !== 'created') throw new Error(`${m.key} was not stored: ${r.status === 'skipped' ? r.detail : r.status}`);
    keyOf.set(r.memory.id, m.key);
  }
  let vectors: VectorStore | undefined;
  if (embedder) {
    vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
    await vectors.whenReady();
  }
  const settings = cfg.settings;
  const stores: SearchableStore[] = [
    {
      name: 'project',
      search: (req) => new HybridSearch(store, { projectId: PROJECT, embedder, vectors, settings }).search(req),
    },
    {
      name: 'global',
      search: (req) => new HybridSearch(global, { projectId: PROJECT, settings }).search(req),
    },
  ];
  const x = cfg.expansion;
  const base = defaultConfig();
  const config = x
    ? {
        ...base,
        memory: {
          ...base.memory,
          pipelineV2: { ...base.memory.pipelineV2, queryExpansionEnabled: true, queryExpansionTimeoutMs: x.timeoutMs },
        },
      }
    : base;
  const llm = x ? ollamaProviderFromConfig({ ollamaUrl: x.url, extractionModel: x.model, extractionTimeout: x.timeoutMs }) : undefined;
  let expansionWarnings = 0;
  const service = new SearchService(
    {
      config,
      stores: { forScope: (scope) => stores.filter((s) => scope === undefined || s.name === scope) },
      warn: (m) => {
        if (/query expansion skipped/.test(m)) expansionWarnings++;
      },
    },
    llm ? () => llm : undefined,
  );
  const askMs: number[] = [];
  return {
    keyOf,
    askMs,
    expansionWarnings: () => expansionWarnings,
    ask: async (query) => {
      const t0 = performance.now();
      const hits = (await service.search({ query, limit: 10, recordAccess: false })).hits;
      askMs.push(performance.now() - t0);
      if (dumpFile) dumpAnswer(query, hits, keyOf);
      return hits;
    },
    cosineRank: async (query, key) => {
      if (!embedder || !vectors) return 0;
      // Meaning only, every memory, no floor: the order the query's embedding alone gives.
      const s = { ...settings, keywordWeight: 0, vectorWeight: 1, relevanceFloor: false };
      const r = await new HybridSearch(store, { projectId: PROJECT, embedder, vectors, settings: s }).search({
        query,
        limit: MEMORIES.length,
      });
      const bySim = [...r.results].sort((a, b) => (b.similarity ?? -1) - (a.similarity ?? -1));
      return bySim.findIndex((h) => keyOf.get(h.memory.id) === key) + 1;
    },
    close: async () => {
      await vectors?.close({ save: false });
      embedder?.dispose();
      await store.close({ snapshot: false });
      await global.close({ snapshot: false });
    },
  };
}

/** CODING_DUMP=<file>: every answer as one JSON line (query; per hit its key, relevance, cosine, evidence). */
const dumpFile = process.env.CODING_DUMP;

function dumpAnswer(query: string, hits: readonly SearchHit[], keyOf: Map<string, string>): void {
  const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1000) / 1000);
  const line = {
    query,
    hits: hits.map((h) => ({
      key: keyOf.get(h.memory.id),
      rel: round(h.relevance),
      cos: round(h.similarity),
      terms: h.matchedTerms,
      ev: h.evidence,
    })),
  };
  appendFileSync(dumpFile!, JSON.stringify(line) + '\n');
}

function share(n: number, of: number): number {
  return of ? Math.round((n / of) * 1000) / 1000 : 0;
}

function askTimes(ms: readonly number[]): { ask_ms_mean: number; ask_ms_p95: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    ask_ms_mean: r(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    ask_ms_p95: r(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0),
  };
}

/** Adjacent pairs of `hits` where the shown relevance rises. */
function inversionsOf(hits: readonly SearchHit[]): number {
  let n = 0;
  for (let i = 1; i < hits.length; i++) if (hits[i]!.relevance > hits[i - 1]!.relevance + 1e-9) n++;
  return n;
}

export async function runCoding(cfg: CodingConfig, tmpRoot = os.tmpdir()): Promise<CodingReport> {
  const workDir = mkdtempSync(path.join(tmpRoot, 'am-coding-'));
  const bench = await openBench(cfg, workDir);
  try {
    let monotonicAnswers = 0;
    let multiAnswers = 0;
    let inversions = 0;
    const see = (hits: SearchHit[]): SearchHit[] => {
      if (hits.length >= 2) {
        multiAnswers++;
        const inv = inversionsOf(hits);
        inversions += inv;
        if (inv === 0) monotonicAnswers++;
      }
      return hits;
    };
    const examples: CodingReport['offtopic_examples'] = [];
    let offWith = 0;
    let offResults = 0;
    for (const q of OFF_TOPIC) {
      const hits = see(await bench.ask(q));
      offResults += hits.length;
      if (hits.length === 0) continue;
      offWith++;
      const first = hits[0]!;
      examples.push({
        query: q,
        results: hits.length,
        first: bench.keyOf.get(first.memory.id) ?? '?',
        relevance: Math.round(first.relevance * 100) / 100,
        matched: first.matchedTerms,
      });
    }
    const ranks = async (qs: readonly AnsweredQuestion[]): Promise<number[]> => {
      const out: number[] = [];
      for (const q of qs) {
        const hits = see(await bench.ask(q.query));
        out.push(hits.findIndex((h) => bench.keyOf.get(h.memory.id) === q.answer) + 1);
      }
      return out;
    };
    const para = await ranks(PARAPHRASES);
    const cosineRanks: number[] = [];
    for (const q of PARAPHRASES) cosineRanks.push(await bench.cosineRank(q.query, q.answer));
    const direct = await ranks(DIRECT);
    const top = (rs: number[], k: number) => share(rs.filter((r) => r > 0 && r <= k).length, rs.length);
    return {
      offtopic_queries: OFF_TOPIC.length,
      offtopic_with_results: share(offWith, OFF_TOPIC.length),
      offtopic_mean_results: Math.round((offResults / OFF_TOPIC.length) * 100) / 100,
      paraphrase_top1: top(para, 1),
      paraphrase_top3: top(para, 3),
      paraphrase_top10: top(para, 10),
      direct_top1: top(direct, 1),
      direct_top3: top(direct, 3),
      direct_top10: top(direct, 10),
      monotonic: share(monotonicAnswers, multiAnswers),
      inversions,
      offtopic_examples: examples,
      paraphrase_misses: PARAPHRASES.map((q, i) => ({ query: q.query, rank: para[i]! })).filter((m) => m.rank === 0 || m.rank > 3),
      paraphrase_top3_cosine: top(cosineRanks, 3),
      ...askTimes(bench.askMs),
      expansion_warnings: bench.expansionWarnings(),
    };
  } finally {
    await bench.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

function table(results: Record<string, CodingReport>): string {
  const cols = [
    'offtopic_with_results',
    'paraphrase_top1',
    'paraphrase_top3',
    'paraphrase_top10',
    'paraphrase_top3_cosine',
    'direct_top1',
    'direct_top3',
    'direct_top10',
    'monotonic',
    'inversions',
  ] as const;
  const lines = [`${'config'.padEnd(10)}${cols.map((c) => c.replace(/_/g, ' ').padStart(16)).join('')}`];
  for (const [name, r] of Object.entries(results)) lines.push(`${name.padEnd(10)}${cols.map((c) => String(r[c]).padStart(16)).join('')}`);
  lines.push('', 'targets: off-topic with results ≤ 0.05; paraphrase top 3 ≥ 0.5; monotonic 1 (issue 22)');
  for (const [name, r] of Object.entries(results)) {
    if (!r.offtopic_examples.length) continue;
    lines.push('', `${name}: off-topic questions that returned something:`);
    for (const e of r.offtopic_examples)
      lines.push(
        `  ${e.query} → ${e.results} (first ${e.first}, ${Math.round(e.relevance * 100)} %, matched: ${e.matched.join(' ') || '—'})`,
      );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const json = argv.includes('--json');
  const i = argv.findIndex((a) => a === '--configs' || a.startsWith('--configs='));
  const list = i < 0 ? ['use', 'hash', 'fts'] : (argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : argv[i + 1]!).split(',');
  const unknown = list.filter((n) => !CODING_CONFIGS[n]);
  if (unknown.length) throw new Error(`unknown config ${unknown.join(', ')} (known: ${Object.keys(CODING_CONFIGS).join(', ')})`);
  const results: Record<string, CodingReport> = {};
  for (const name of list) {
    process.stderr.write(`coding: ${name}…\n`);
    results[name] = await runCoding(CODING_CONFIGS[name]!);
  }
  process.stdout.write(json ? `${JSON.stringify({ configs: results }, null, 1)}\n` : `${table(results)}\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`coding: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
