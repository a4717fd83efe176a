/**
 * Agent sessions over the engine (docs/sessions.md): the project store's session API
 * (src/core/sessions) behind the write guard, with a `sessions.changed` event after each change,
 * a summary check queued after events are logged, and one recall over memories and session
 * chunks ranked by the same absolute relevance (src/core/search/relevance.ts).
 */
import type { SessionStore } from '../../../core/sessions/sessionStore';
import type { NoteInput } from '../../../core/sessions/types';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type {
  EngineEvent,
  EngineMethods,
  RecallItem,
  RecallParams,
  RecallResponse,
  SessionSearchParams,
  SessionSearchResponse,
} from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';
import type { SearchService } from './search';

type Kind = Extract<EngineEvent, { type: 'sessions.changed' }>['kind'];
type R<M extends keyof EngineMethods> = EngineMethods[M]['result'];

export class SessionsService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly search: SearchService,
  ) {}

  private get rt(): StoreRuntime {
    return this.ctx.stores.runtime('project');
  }

  private get api(): SessionStore {
    const s = this.rt.sessions;
    if (!s) throw new EngineError('engine_stopped', 'Agent sessions are not open yet: try again in a moment.');
    return s.sessions;
  }

  /** Runs a write behind the guard, then tells listeners. */
  private async write<T>(sessionId: string | undefined, kind: Kind, fn: (api: SessionStore) => T | Promise<T>): Promise<T> {
    const api = this.api;
    const out = await this.ctx.write(this.rt, () => Promise.resolve(fn(api)));
    if (sessionId) this.ctx.emit({ type: 'sessions.changed', sessionId, kind });
    return out;
  }

  async log(p: EngineMethods['sessions.log']['params']): Promise<R<'sessions.log'>> {
    const r = await this.write(p.sessionId, 'logged', (api) => api.storeEvents(p.sessionId, p.events, p.agent ? { agent: p.agent } : {}));
    this.rt.sessions?.summaries.queue(r.sessionId);
    return r;
  }

  async logTranscript(p: EngineMethods['sessions.logTranscript']['params']): Promise<R<'sessions.logTranscript'>> {
    const r = await this.write(p.sessionId, 'logged', (api) =>
      api.logTranscript(p.sessionId, p.path, p.agent, { deferEmbedding: p.deferEmbedding === true }),
    );
    if (r.logged) this.rt.sessions?.summaries.queue(p.sessionId);
    return r;
  }

  list(limit?: number, offset?: number): R<'sessions.list'> {
    return this.api.list(limit, offset);
  }

  get(sessionId: string): R<'sessions.get'> {
    return this.api.get(sessionId) ?? null;
  }

  events(sessionId: string, afterSequence?: number, limit?: number): R<'sessions.events'> {
    return this.api.events(sessionId, afterSequence, limit);
  }

  restore(sessionId: string, budgetTokens?: number): R<'sessions.restore'> {
    return this.api.restore(sessionId, budgetTokens);
  }

  async searchChunks(p: SessionSearchParams): Promise<SessionSearchResponse> {
    const t0 = performance.now();
    const r = await this.api.search({
      query: p.query,
      ...(p.sessionId ? { sessionId: p.sessionId } : {}),
      ...(p.tags ? { tags: p.tags } : {}),
      ...(p.queryEmbedding ? { queryEmbedding: p.queryEmbedding } : {}),
      ...(p.limit !== undefined ? { topK: p.limit } : {}),
      ...(p.vectorWeight !== undefined ? { vectorWeight: p.vectorWeight } : {}),
      ...(p.ftsWeight !== undefined ? { ftsWeight: p.ftsWeight } : {}),
    });
    for (const w of r.warnings) this.ctx.warn(`session search: ${w}`);
    const legsUsed = [...(r.legs.keyword ? (['keyword'] as const) : []), ...(r.legs.vector ? (['vector'] as const) : [])];
    return { query: p.query, hits: r.hits, legsUsed, tookMs: performance.now() - t0 };
  }

  forget(p: EngineMethods['sessions.forget']['params']): Promise<R<'sessions.forget'>> {
    return this.write(p.sessionId, 'forgotten', (api) =>
      api.forget(p.sessionId, { ...(p.who ? { who: p.who } : {}), ...(p.reason ? { reason: p.reason } : {}) }),
    );
  }

  summary(sessionId: string): R<'sessions.summary'> {
    return this.api.readSummary(sessionId);
  }

  writeSummary(p: EngineMethods['sessions.writeSummary']['params']): Promise<R<'sessions.writeSummary'>> {
    return this.write(p.sessionId, 'summary', (api) =>
      api.writeSummary(p.sessionId, { text: p.text, upperSequence: p.upperSequence }, p.expectedEpoch),
    );
  }

  summarize(sessionId: string): Promise<R<'sessions.summarize'>> {
    return this.write(sessionId, 'summary', () => {
      const task = this.rt.sessions?.summaries;
      if (!task) throw new EngineError('engine_stopped', 'Agent sessions are not open yet: try again in a moment.');
      return task.summarise(sessionId);
    });
  }

  readScratchpad(sessionId: string): R<'scratchpad.read'> {
    return this.api.readScratchpad(sessionId);
  }

  writeScratchpad(sessionId: string, items: unknown, agent?: string): Promise<R<'scratchpad.write'>> {
    return this.write(sessionId, 'scratchpad', (api) => api.writeScratchpad(sessionId, items, agent));
  }

  async clearScratchpad(sessionId: string): Promise<R<'scratchpad.clear'>> {
    return { cleared: await this.write(sessionId, 'scratchpad', (api) => api.clearScratchpad(sessionId)) };
  }

  async storeNote(p: EngineMethods['notes.store']['params']): Promise<R<'notes.store'>> {
    const input: NoteInput = {
      content: p.content,
      ...(p.sessionId ? { sessionId: p.sessionId } : {}),
      ...(p.noteId ? { noteId: p.noteId } : {}),
      ...(p.source !== undefined ? { source: p.source } : {}),
      ...(p.tags ? { tags: p.tags } : {}),
    };
    const r = await this.write(undefined, 'notes', (api) => api.storeNote(input, p.agent));
    this.ctx.emit({ type: 'sessions.changed', sessionId: r.sessionId, kind: 'notes' });
    return r;
  }

  async deleteNote(sessionId: string | undefined, noteId: string): Promise<R<'notes.delete'>> {
    return { deleted: await this.write(sessionId, 'notes', (api) => api.deleteNote(sessionId, noteId)) };
  }

  listNotes(sessionId: string | undefined, limit?: number): R<'notes.list'> {
    return this.api.listNotes(sessionId, limit);
  }

  /** One recall over memories (both stores) and session chunks, ranked by relevance, each saying which it is. */
  async recall(p: RecallParams): Promise<RecallResponse> {
    const t0 = performance.now();
    const limit = p.limit ?? this.ctx.config.search.default_limit;
    // Both at once: their query embeddings then reach the built-in model in one call (useLiteWorker.ts).
    const [mem, s] = await Promise.all([
      this.search.search({ query: p.query, limit, ...(p.recordAccess ? { recordAccess: true } : {}) }),
      p.includeSessions !== false && this.rt.sessions
        ? this.searchChunks({ query: p.query, limit, ...(p.sessionId ? { sessionId: p.sessionId } : {}) })
        : undefined,
    ]);
    const items: RecallItem[] = mem.hits.map((h) => ({ kind: 'memory', relevance: h.relevance, memory: h }));
    const legs = new Set(mem.legsUsed);
    for (const h of s?.hits ?? []) items.push({ kind: 'session', relevance: h.relevance, chunk: h });
    for (const l of s?.legsUsed ?? []) legs.add(l);
    // Stable sort: within one kind the list's own order is kept on equal relevance.
    items.sort((a, b) => b.relevance - a.relevance);
    return { query: p.query, items: items.slice(0, limit), legsUsed: [...legs], tookMs: performance.now() - t0 };
  }
}
