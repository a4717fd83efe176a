/**
 * Agent sessions (docs/sessions.md) at one size, through the core session API on a real store
 * (sql.js + op log on disk, the chunk HNSW index of the hash embedder's space):
 * - store: a 1,000-event session logged one event per call, as an agent logs its turns
 *   (events/s, p50 / p99 per call; embedding included: the hash embedder);
 * - query: the hybrid chunk query over `size` chunks (p50 / p99 over 200 queries), beside the
 *   same query's full-text leg alone (vector weight 0: no vector leg) and ranked by the vector leg
 *   (full-text weight 0), measured in the same run, after the chunk index caught up with every
 *   chunk written (`warm_ms`); beside them, the keyword ranking the pruned one replaced (bm25() in
 *   SQL over every matching chunk, `text_rank_bm25_sql`).
 * `npm run bench -- --sections sessions --sizes 100000`, or `node --import tsx bench/sessions.bench.ts 10000`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../src/core/store/store';
import { HashEmbedder } from '../src/core/embed/hashEmbedder';
import { VectorStore } from '../src/core/vectorstore/vectorStore';
import { ActiveSpace } from '../src/core/vectorstore/activeSpace';
import { ChunkSpace } from '../src/core/sessions/chunkVectors';
import { SessionStore } from '../src/core/sessions/sessionStore';
import { buildFtsTerms, joinFtsTerms } from '../src/core/search/ftsQuery';
import { Rng, syntheticMemories } from './corpus';
import { percentile, round } from './stats';

const STORE_EVENTS = 1000;
const QUERIES = 200;
const BATCH = 500;

function p(xs: number[]): { p50_ms: number; p99_ms: number } {
  return { p50_ms: round(percentile(xs, 50)), p99_ms: round(percentile(xs, 99)) };
}

export async function runSessionsBench(size: number): Promise<object> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-sessions-bench-'));
  const store = await Store.open({ dir });
  const embedder = new HashEmbedder({ dimension: 256 });
  const vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
  const chunks = await ChunkSpace.open(store, new ActiveSpace(embedder, vectors));
  const sessions = new SessionStore({ store, chunks });
  const texts = [...syntheticMemories(Math.max(size, STORE_EVENTS), 7)].map((m) => m.content.slice(0, 600));
  try {
    // 1. One session of 1,000 events, one call each.
    const perCall: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < STORE_EVENTS; i++) {
      const s = performance.now();
      await sessions.storeEvents('bench-store', [{ payload: { role: i % 2 ? 'assistant' : 'user', content: texts[i]! } }]);
      perCall.push(performance.now() - s);
    }
    const storeMs = performance.now() - t0;

    // 2. `size` chunks over many sessions (batches of 500 events: one chunk each), then the queries.
    const tb = performance.now();
    for (let i = 0, sess = 0; i < size; i += BATCH, sess++) {
      const events = texts.slice(i, Math.min(size, i + BATCH)).map((content) => ({ payload: { role: 'user', content } }));
      await sessions.storeEvents(`bench-${sess}`, events);
    }
    const buildMs = performance.now() - tb;
    const total = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM chunks')!.n);
    const rng = new Rng(11);
    const queries = Array.from({ length: QUERIES }, () => {
      const words = texts[Math.floor(rng.next() * size)]!.split(/\s+/).filter((w) => w.length > 4);
      return words.slice(0, 3).join(' ') || 'service logs';
    });
    // Warm: the chunk index brought up to date with every chunk written (an HNSW insert each), bm25 registered.
    const tw = performance.now();
    await chunks.current?.vectors.whenReady();
    await sessions.search({ query: queries[0]! });
    const warmMs = performance.now() - tw;
    const hybrid: number[] = [];
    const text: number[] = [];
    const vectorOnly: number[] = [];
    const textSql: number[] = [];
    const matches: number[] = [];
    for (const q of queries) {
      let s = performance.now();
      await sessions.search({ query: q, topK: 10 });
      hybrid.push(performance.now() - s);
      // Vector weight 0: the full-text leg alone (no query embedding, no vector leg).
      s = performance.now();
      await sessions.search({ query: q, topK: 10, vectorWeight: 0, ftsWeight: 1 });
      text.push(performance.now() - s);
      // Full-text weight 0: ranked by the vector leg (the keyword leg still runs: the relevance floor needs it).
      s = performance.now();
      await sessions.search({ query: q, topK: 10, vectorWeight: 1, ftsWeight: 0 });
      vectorOnly.push(performance.now() - s);
      const expr = joinFtsTerms(buildFtsTerms(q) ?? []);
      if (!expr) continue;
      matches.push(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [expr])!.n));
      // The keyword leg's ranking before the pruned one: bm25() in SQL over every matching chunk (k = 30, as the leg asks).
      s = performance.now();
      store.all(
        "SELECT docid, bm25(matchinfo(chunks_fts, 'pcnalx')) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score ASC LIMIT 120",
        [expr],
      );
      textSql.push(performance.now() - s);
    }
    const h = p(hybrid);
    const k = p(text);
    return {
      chunks: total,
      store_1000_events: { events_per_s: round((STORE_EVENTS / storeMs) * 1000, 1), ...p(perCall) },
      build_ms: round(buildMs),
      warm_ms: round(warmMs),
      index_state: chunks.current?.vectors.stats().state,
      full_text_matches_p50: round(percentile(matches, 50)),
      query_hybrid: h,
      query_text_only: k,
      query_vector_weighted: p(vectorOnly),
      /** The ranking the keyword leg replaced (bm25() in SQL over every match), same queries. */
      text_rank_bm25_sql: p(textSql),
      hybrid_vs_text_only_p50: round(h.p50_ms / k.p50_ms),
    };
  } finally {
    await chunks.close();
    await vectors.close();
    await store.close({ snapshot: false });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runSessionsBench(Number(process.argv[2] ?? 10000)).then(
    (r) => process.stdout.write(`${JSON.stringify(r, null, 2)}\n`),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
}
