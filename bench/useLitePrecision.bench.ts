/**
 * The built-in model in int16 (the default) against float32, in one process, rounds alternating:
 * CPU per text for queries (one view and a query's two views in one call) and for memory-sized
 * texts, the load, the kernels' memory, and how far apart the vectors are.
 *
 *   node --import tsx bench/useLitePrecision.bench.ts
 */
import { UseLiteModel, type UseLitePrecision } from '../src/core/embed/useLiteModel';
import { agentMemories, agentQueries } from './agentCorpus';

const ROUNDS = 9;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

function cpuMs<T>(fn: () => T): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

function main(): void {
  const queries = agentQueries(40);
  const views = queries.map((q) => [q, q.replace(/\b(the|a|an|do|we|our|is|of|to|in|on|for|what|which|how|why)\b/gi, ' ').trim()]);
  const documents = agentMemories(40).map((m) => m.content);
  const precisions: UseLitePrecision[] = ['float32', 'int16'];
  const loads: Record<string, number[]> = { float32: [], int16: [] };
  const models = new Map<UseLitePrecision, UseLiteModel>();
  for (let i = 0; i < 3; i++) {
    for (const p of precisions) {
      const t0 = performance.now();
      models.set(p, UseLiteModel.load(undefined, p));
      loads[p]!.push(performance.now() - t0);
    }
  }
  const times: Record<string, Record<string, number[]>> = {};
  for (const p of precisions) {
    const m = models.get(p)!;
    for (const q of queries.slice(0, 5)) m.embed(q); // warm
    times[p] = { query: [], two_views: [], document: [] };
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of r % 2 === 0 ? precisions : [...precisions].reverse()) {
      const m = models.get(p)!;
      times[p]!.query!.push(cpuMs(() => queries.forEach((q) => m.embed(q))) / queries.length);
      times[p]!.two_views!.push(cpuMs(() => views.forEach((v) => m.embedMany(v))) / views.length);
      times[p]!.document!.push(cpuMs(() => documents.forEach((d) => m.embed(d))) / documents.length);
    }
  }
  let minCos = 1;
  for (const t of [...queries, ...documents]) {
    const a = models.get('float32')!.embed(t);
    const b = models.get('int16')!.embed(t);
    minCos = Math.min(
      minCos,
      a.reduce((s, v, i) => s + v * b[i]!, 0),
    );
  }
  const out = Object.fromEntries(
    precisions.map((p) => [
      p,
      {
        query_cpu_ms: round(median(times[p]!.query!)),
        two_views_cpu_ms: round(median(times[p]!.two_views!)),
        document_cpu_ms: round(median(times[p]!.document!)),
        load_ms: round(median(loads[p]!), 1),
        memory_mb: round(models.get(p)!.info.memoryBytes / 2 ** 20, 1),
      },
    ]),
  );
  process.stdout.write(
    `${JSON.stringify({ ...out, min_cosine_int16_to_float32: round(minCos, 7), texts: queries.length + documents.length }, null, 2)}\n`,
  );
}

main();
