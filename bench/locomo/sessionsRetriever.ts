// LoCoMo through agent sessions (docs/sessions.md): one real store per sample, each of the
// conversation's sessions stored as a session of events — one event per turn, `{role, content:
// "<speaker>: <text>"}` — through SessionStore.storeEvents, the write path agents use (extraction,
// chunks of at most 640 characters, embedding outside the transaction, dedup, FTS and vector
// indexing). Questions go through the chunk query (SessionStore.search: hybrid, min-max, 0.7 / 0.3,
// the relevance floor) over every session of the sample, and its chunks are turned into turns by
// sessionTurns.ts: a chunk's score goes to the turns it covers, the list is cut at k turns, so the
// figures compare with the per-turn configs.
import * as path from 'node:path';
import { Store } from '../../src/core/store/store';
import type { Embedder } from '../../src/core/embed/types';
import { VectorStore } from '../../src/core/vectorstore/vectorStore';
import { ActiveSpace } from '../../src/core/vectorstore/activeSpace';
import { ChunkSpace } from '../../src/core/sessions/chunkVectors';
import { SessionStore } from '../../src/core/sessions/sessionStore';
import { MAX_EVENTS_PER_CALL, SEARCH_MAX_LIMIT } from '../../src/core/sessions/limits';
import type { ChunkQuery } from '../../src/core/sessions/chunkSearch';
import { PerSampleRetriever, type RetrieverContext, type RetrieverDoc } from './retriever';
import { parseSessionDate } from './sessionDate';
import { cachedQueries } from './engineRetriever';
import { chunkHashesOf, rankTurns, type EventChunks } from './sessionTurns';

export interface SessionsRetrieverOptions {
  /** Makes the embedder (undefined: the chunk query's full-text leg only). */
  embedder?: () => Embedder | Promise<Embedder>;
  /** Weights of the chunk query (default the product's 0.7 / 0.3). */
  weights?: Pick<ChunkQuery, 'vectorWeight' | 'ftsWeight'>;
}

interface SessionsSample {
  store: Store;
  memoryVectors?: VectorStore;
  chunks: ChunkSpace;
  sessions: SessionStore;
  /** `<session id>\0<sequence>` → dia id. */
  turns: Map<string, string>;
  /** Per session: the chunk hashes of each event. */
  events: Map<string, EventChunks>;
}

/** The session id of a LoCoMo session of a sample. */
export function locomoSessionId(sampleId: string, session: number | undefined): string {
  return `${sampleId} session ${session ?? 0}`;
}

/** A sample's turns as sessions of events: session id → events in order, each with its dia id. */
export function turnsAsSessions(
  sampleId: string,
  docs: readonly RetrieverDoc[],
): Map<string, { diaId: string; date: string; payload: Record<string, unknown> }[]> {
  const out = new Map<string, { diaId: string; date: string; payload: Record<string, unknown> }[]>();
  const first = docs[0]?.speaker;
  for (const d of docs) {
    const id = locomoSessionId(sampleId, d.session);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    // The first speaker of the conversation is the "user", the other the "assistant"; the text keeps the speaker's name.
    list.push({ diaId: d.id, date: d.date, payload: { role: d.speaker === first ? 'user' : 'assistant', content: d.text } });
  }
  return out;
}

export class SessionsRetriever extends PerSampleRetriever<SessionsSample> {
  private embedder: Embedder | undefined;
  /** Chunks stored without a vector (the embedder failed): should stay 0. */
  pending = 0;

  private constructor(
    name: string,
    private readonly ctx: RetrieverContext,
    private readonly opts: SessionsRetrieverOptions,
  ) {
    super(name);
  }

  static async create(name: string, ctx: RetrieverContext, opts: SessionsRetrieverOptions = {}): Promise<SessionsRetriever> {
    const r = new SessionsRetriever(name, ctx, opts);
    if (opts.embedder) r.embedder = cachedQueries(await opts.embedder());
    return r;
  }

  protected async open(sampleId: string, docs: RetrieverDoc[]): Promise<SessionsSample> {
    const store = await Store.open({ dir: path.join(this.ctx.workDir, sampleId.replace(/[^\w.-]+/g, '_')) });
    let clock = Date.UTC(2000, 0, 1);
    let memoryVectors: VectorStore | undefined;
    let active: ActiveSpace | undefined;
    if (this.embedder) {
      memoryVectors = await VectorStore.open({ store, space: this.embedder.space, dimension: this.embedder.dimension });
      active = new ActiveSpace(this.embedder, memoryVectors);
    }
    const chunks = await ChunkSpace.open(store, active, { onWarning: (m) => this.ctx.log(`  ${this.name}: ${m}`) });
    const sessions = new SessionStore({ store, chunks, now: () => new Date(clock) });
    const turns = new Map<string, string>();
    const events = new Map<string, EventChunks>();
    for (const [sessionId, list] of turnsAsSessions(sampleId, docs)) {
      // The session's own date, a second per turn: "last active" follows the conversation.
      clock = parseSessionDate(list[0]!.date)?.getTime() ?? clock + 86_400_000;
      const byHash: EventChunks = new Map();
      for (let i = 0; i < list.length; i += MAX_EVENTS_PER_CALL) {
        const part = list.slice(i, i + MAX_EVENTS_PER_CALL);
        const r = await sessions.storeEvents(
          sessionId,
          part.map((e, j) => ({ sequence: i + j + 1, payload: e.payload })),
          { agent: 'locomo' },
        );
        this.pending += r.chunksPending;
        clock += part.length * 1000;
      }
      list.forEach((e, i) => {
        turns.set(`${sessionId}\u0000${i + 1}`, e.diaId);
        byHash.set(i + 1, chunkHashesOf(e.payload));
      });
      events.set(sessionId, byHash);
    }
    if (this.pending) this.ctx.log(`  ${this.name}: ${this.pending} chunks stored without a vector (the embedder failed)`);
    return { store, memoryVectors, chunks, sessions, turns, events };
  }

  /**
   * The first k turns of the chunk query. It is asked for k chunks (what an agent asking for k
   * results gets); when those cover fewer than k turns (several chunks of one long turn), it is
   * asked again for more, up to the query's limit.
   */
  protected async query(s: SessionsSample, query: string, k: number): Promise<string[]> {
    const turnOf = (sessionId: string, seq: number) => s.turns.get(`${sessionId}\u0000${seq}`);
    let topK = Math.min(k, SEARCH_MAX_LIMIT);
    for (;;) {
      const r = await s.sessions.search({ query, topK, ...this.opts.weights });
      const ranked = rankTurns(r.hits, s.events, turnOf, k);
      if (ranked.length >= k || r.hits.length < topK || topK >= SEARCH_MAX_LIMIT) return ranked;
      topK = Math.min(SEARCH_MAX_LIMIT, topK * 2);
    }
  }

  protected async dispose(s: SessionsSample): Promise<void> {
    await s.chunks.close();
    await s.memoryVectors?.close({ save: false });
    await s.store.close({ snapshot: false });
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.embedder?.dispose();
    }
  }
}
