// Drives one retriever config over a LoCoMo dataset and scores it with THE metric.
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LocomoDataset } from './data';
import { MAX_K, computeRecall, type RankedResult, type RecallReport } from './metric';
import { nonsenseQueries } from './nonsense';
import type { Retriever, RetrieverFactory } from './retriever';

export interface EvaluateOptions {
  /** Results asked per question (default MAX_K = 20). */
  k?: number;
  /** Decimals of the reported shares (default 4; `undefined` in the object means exact). */
  digits?: number;
  /** Where the per-config work directory is made (default the OS temp dir). */
  tmpRoot?: string;
  log?: (message: string) => void;
}

export interface EvaluateTimings {
  indexMs: number;
  searchMs: number;
  /** Median search latency over all questions. */
  searchP50Ms: number;
}

/** Off-topic queries asked of every sample's store (nonsense.ts): how many, and the share that returned anything. */
export interface NonsenseReport {
  nonsense_queries: number;
  nonsense_hit_rate: number;
}

export interface Evaluation {
  report: RecallReport & NonsenseReport;
  timings: EvaluateTimings;
  /** Problems with what the retriever returned (repeats, ids of no turn, too many results). */
  warnings: string[];
}

/** Run `factory`'s retriever over every sample of `dataset`: index, ask every question, score. */
export async function evaluate(
  name: string,
  factory: RetrieverFactory,
  dataset: LocomoDataset,
  opts: EvaluateOptions = {},
): Promise<Evaluation> {
  const k = opts.k ?? MAX_K;
  const log = opts.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const workDir = mkdtempSync(path.join(opts.tmpRoot ?? os.tmpdir(), `locomo-${name.replace(/[^\w.-]+/g, '_')}-`));
  const results: RankedResult[] = [];
  const latencies: number[] = [];
  const warnings: string[] = [];
  let indexMs = 0;
  let retriever: Retriever | undefined;
  const nonsense = nonsenseQueries();
  let nonsenseHits = 0;
  let nonsenseAsked = 0;
  try {
    retriever = await factory({ workDir, log });
    for (const sample of dataset.samples) {
      const known = new Set(sample.docs.map((d) => d.id));
      let t = performance.now();
      await retriever.index(
        sample.sampleId,
        sample.docs.map((d) => ({ id: d.id, text: d.text, date: d.date, speaker: d.speaker, session: d.session })),
      );
      const ms = performance.now() - t;
      indexMs += ms;
      for (const q of sample.questions) {
        t = performance.now();
        const ranked = await retriever.search(sample.sampleId, q.question, k);
        latencies.push(performance.now() - t);
        if (!Array.isArray(ranked)) throw new Error(`${name}: search must return an array of dia ids`);
        const where = `${name}: ${sample.sampleId}#${q.index}`;
        if (ranked.length > k) warnings.push(`${where}: ${ranked.length} results for k = ${k} (extra ignored)`);
        if (new Set(ranked).size !== ranked.length) warnings.push(`${where}: repeated ids in the results`);
        const stray = ranked.filter((id) => !known.has(id));
        if (stray.length) warnings.push(`${where}: ids naming no turn: ${stray.slice(0, 3).join(', ')}`);
        results.push({ question: q, ranked: ranked.slice(0, k) });
      }
      for (const q of nonsense) if ((await retriever.search(sample.sampleId, q, k)).length > 0) nonsenseHits++;
      nonsenseAsked += nonsense.length;
      await retriever.release?.(sample.sampleId);
      log(
        `  ${name}: ${sample.sampleId}: ${sample.docs.length} turns indexed in ${ms.toFixed(0)} ms, ${sample.questions.length} questions`,
      );
    }
  } finally {
    try {
      await retriever?.close();
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    report: {
      ...computeRecall(results, { digits: 'digits' in opts ? opts.digits : 4 }),
      nonsense_queries: nonsenseAsked,
      nonsense_hit_rate: nonsenseAsked ? Math.round((nonsenseHits / nonsenseAsked) * 10_000) / 10_000 : 0,
    },
    timings: {
      indexMs: round1(indexMs),
      searchMs: round1(latencies.reduce((a, b) => a + b, 0)),
      searchP50Ms: round1(sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : 0),
    },
    warnings,
  };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
