/**
 * Calibrates the vector floor of the relevance check (src/core/search/relevance.ts) per embedder.
 *
 *   node --import tsx bench/locomo/calibrate.ts [--embedders=hash,use,ollama]
 *
 * `ollama` is nomic-embed-text through a local Ollama (127.0.0.1:11434), not run by default;
 * `static` is USE-lite for the turns and the distilled query table (bench/student/README.md).
 *
 * Runs LoCoMo through the engine's search service with the floor OFF, and records for every
 * answer the hits' cosine and matched words. Then, for each candidate floor F, it replays the
 * floor on those answers: nonsense_hit_rate (off-topic queries, nonsense.ts, with any hit that
 * matched a word or has cosine ≥ F) and recall_any@10 (the first 10 of the 20 hits that clear
 * it). Also prints the distribution of the best cosine of the off-topic queries. Results:
 * bench/RESULTS-relevance.md.
 */
import { HashEmbedder } from '../../src/core/embed/hashEmbedder';
import { UseLiteEmbedder } from '../../src/core/embed/useLite';
import { OllamaEmbedder } from '../../src/core/embed/ollama';
import type { Embedder } from '../../src/core/embed/types';
import { loadLocomo } from './data';
import { useStatic } from './configs';
import { EngineRetriever } from './engineRetriever';
import { evaluate } from './harness';
import { nonsenseQueries } from './nonsense';

type Hit = { diaId: string; similarity?: number; matchedTerms: string[] };

const EMBEDDERS: Record<string, () => Embedder> = {
  hash: () => new HashEmbedder({ dimension: 512 }),
  use: () => new UseLiteEmbedder(),
  ollama: () => new OllamaEmbedder({ model: 'nomic-embed-text' }),
  static: useStatic,
};

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
}

const clears = (h: Hit, floor: number) => h.matchedTerms.length > 0 || (h.similarity ?? -1) >= floor;

async function calibrate(name: string): Promise<void> {
  const dataset = loadLocomo(process.argv.find((a) => a.endsWith('.json')));
  const answers: { query: string; hits: Hit[] }[] = [];
  const factory = (ctx: Parameters<typeof EngineRetriever.create>[1]) =>
    EngineRetriever.create(name, ctx, {
      embedder: EMBEDDERS[name],
      settings: { relevanceFloor: false },
      inspect: (query, hits) => answers.push({ query, hits }),
    });
  await evaluate(`calibrate-${name}`, factory, dataset, { log: (m) => process.stderr.write(m + '\n') });
  const nonsense = new Set(nonsenseQueries());
  const evidence = new Map<string, Set<string>>();
  for (const s of dataset.samples)
    for (const q of s.questions) evidence.set(q.question, new Set([...(evidence.get(q.question) ?? []), ...q.evidence]));
  const off = answers.filter((a) => nonsense.has(a.query));
  const real = answers.filter((a) => !nonsense.has(a.query));
  const best = off.map((a) => Math.max(-1, ...a.hits.map((h) => h.similarity ?? -1)));
  const pcts = [0.5, 0.9, 0.95, 0.99, 1].map((p) => `p${p * 100} ${percentile(best, p).toFixed(3)}`);
  process.stdout.write(`\n${name}: ${off.length} off-topic answers, best cosine ${pcts.join(', ')}\n`);
  const gold = real.map((a) =>
    percentile(
      a.hits.filter((h) => evidence.get(a.query)?.has(h.diaId)).map((h) => h.similarity ?? -1),
      1,
    ),
  );
  process.stdout.write(
    `${name}: cosine of the best-placed evidence hit, p10 ${percentile(gold, 0.1).toFixed(3)}, p50 ${percentile(gold, 0.5).toFixed(3)}\n`,
  );
  process.stdout.write('floor   nonsense_hit_rate  recall_any@10\n');
  for (let f = 0; f <= 0.9001; f += 0.025) {
    const rate = off.filter((a) => a.hits.some((h) => clears(h, f))).length / off.length;
    const recall =
      real.filter((a) =>
        a.hits
          .filter((h) => clears(h, f))
          .slice(0, 10)
          .some((h) => evidence.get(a.query)?.has(h.diaId)),
      ).length / real.length;
    process.stdout.write(`${f.toFixed(3).padEnd(8)}${rate.toFixed(4).padEnd(19)}${recall.toFixed(4)}\n`);
  }
}

async function main(): Promise<void> {
  const arg = process.argv.find((a) => a.startsWith('--embedders='))?.slice('--embedders='.length) ?? 'hash,use';
  for (const name of arg.split(',')) {
    if (!EMBEDDERS[name]) throw new Error(`unknown embedder ${name} (known: ${Object.keys(EMBEDDERS).join(', ')})`);
    await calibrate(name);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`calibrate: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
