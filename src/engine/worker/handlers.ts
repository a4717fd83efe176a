/**
 * The method table: protocol method → engine service call. This is the one place that checks
 * wire params: a missing or mistyped param, or a limit outside its documented range
 * (src/core/memory/limits.ts), is an invalid_input error naming it — never a crash, never a
 * silent clamp. The services and the core then check values (content size, versions, …).
 */
import { LIMIT_RANGES, checkLimit, searchRange, type LimitRange } from '../../core/memory/limits';
import type { CallContext, MemoryEngine } from './engine';
import { shownValue } from '../../core/util/shownValue';
import { EngineError } from '../errors';
import { idempotentCreate } from './owner/idempotency';
import type { EngineMethod, EngineMethods, GraphParams, MemoryScope, ParamsOf, ResultOf, SearchParams } from '../protocol';
import { SUGGESTION_STATUSES } from '../../core/consolidation/records';
import { DEFAULT_WAIT_MS } from './services/changes';
import { SCHEDULE_HANDLERS } from './scheduleHandlers';
import { TEAM_HANDLERS } from './teamHandlers';

type Handler<M extends EngineMethod> = (engine: MemoryEngine, params: ParamsOf<M>, ctx: CallContext) => ResultOf<M> | Promise<ResultOf<M>>;
export type HandlerTable = { [M in EngineMethod]: Handler<M> };

type Params = Record<string, unknown> | undefined;

/** One memory (or none) with who made its team server version (services/team.ts withSharedBy). */
function sharedOne<T extends { id: string; scope: string } | null>(e: MemoryEngine, m: T): T {
  return m ? e.team.withSharedBy([m])[0]! : m;
}

/** A page of memories with who made each one's team server version (every list a memory view reads). */
function sharedPage<T extends { items: { id: string; scope: string }[] }>(e: MemoryEngine, page: T): T {
  return { ...page, items: e.team.withSharedBy(page.items) };
}

function str(params: unknown, key: string): string {
  const v = (params as Params)?.[key];
  if (typeof v !== 'string' || v === '') throw new EngineError('invalid_input', `${key}: must be a non-empty string`);
  return v;
}

function obj<T>(v: T, key: string): T {
  if (!v || typeof v !== 'object') throw new EngineError('invalid_input', `${key}: must be an object`);
  return v;
}

function optString(v: unknown, key: string): string | undefined {
  if (v !== undefined && typeof v !== 'string') throw new EngineError('invalid_input', `${key}: must be a string`);
  return v;
}

function optBool(v: unknown, key: string): boolean | undefined {
  if (v !== undefined && typeof v !== 'boolean')
    throw new EngineError('invalid_input', `${key}: must be true or false, got ${shownValue(v)}`);
  return v;
}

function optStrings(v: unknown, key: string): void {
  if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== 'string')))
    throw new EngineError('invalid_input', `${key}: must be an array of strings`);
}

/** An optional value that must be one of `allowed`. */
function optOneOf<T extends string>(v: T | undefined, allowed: readonly T[], key: string): T | undefined {
  if (v !== undefined && !allowed.includes(v)) {
    throw new EngineError('invalid_input', `${key}: must be one of ${allowed.join(', ')}, got ${shownValue(v)}`);
  }
  return v;
}

function versionParam(v: unknown, key: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new EngineError('invalid_input', `${key}: must be a whole number ≥ 1, got ${shownValue(v)}`);
  return v;
}

/** A whole number ≥ 0. */
function wholeNumber(v: unknown, key: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new EngineError('invalid_input', `${key}: must be a whole number ≥ 0, got ${shownValue(v)}`);
  return v;
}

function optInt(v: unknown, key: string): number | undefined {
  return v === undefined ? undefined : wholeNumber(v, key);
}

function optVersion(v: unknown): number | undefined {
  return v === undefined ? undefined : versionParam(v, 'expectedVersion');
}

const EXPORT_FORMATS = ['jsonl', 'json'] as const;
const STORE_NAMES = ['project', 'global'] as const;

/** A cursor of the change feed: a whole number ≥ 0 (absent: `fallback`). */
function cursorParam(v: unknown, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new EngineError('invalid_input', `since: must be a cursor, a whole number ≥ 0, got ${shownValue(v)}`);
  return v;
}

/** How long events.wait may wait: 0 to 60 s (default 25 s). */
function waitMs(v: unknown): number {
  if (v === undefined) return DEFAULT_WAIT_MS;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 60_000)
    throw new EngineError('invalid_input', `timeoutMs: must be a whole number of milliseconds from 0 to 60000, got ${shownValue(v)}`);
  return v;
}

function scopeOf(v: MemoryScope | undefined): { scope?: MemoryScope } {
  const scope = optOneOf(v, ['project', 'global'] as const, 'scope');
  return scope ? { scope } : {};
}
const REMOVED_REASONS = ['expired', 'deleted'] as const;

function limit(params: unknown, range: LimitRange, what: string): number {
  return checkLimit((params as Params)?.limit, range, what);
}

function offset(params: unknown): number {
  const v = (params as Params)?.offset ?? 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new EngineError('invalid_input', `offset: must be a whole number ≥ 0, got ${shownValue(v)}`);
  return v;
}

function searchParams(e: MemoryEngine, p: SearchParams): SearchParams {
  obj(p, 'params');
  if (typeof p.query !== 'string') throw new EngineError('invalid_input', 'query: must be a string');
  const l = checkLimit(p.limit, searchRange(e.config.search), 'search.max_limit');
  optStrings(p.types, 'types');
  optStrings(p.tags, 'tags');
  return { ...p, limit: l };
}

function graphParams(p: GraphParams | undefined): GraphParams {
  const g = p ?? {};
  if (g.mode !== undefined && g.mode !== 'entities' && g.mode !== 'memories') {
    throw new EngineError('invalid_input', `mode: must be "entities" or "memories", got ${shownValue(g.mode)}`);
  }
  if (g.minMentions !== undefined && (typeof g.minMentions !== 'number' || !Number.isFinite(g.minMentions))) {
    throw new EngineError('invalid_input', 'minMentions: must be a number');
  }
  optStrings(g.entityTypes, 'entityTypes');
  optString(g.search, 'search');
  optString(g.centerId, 'centerId');
  const memoryView = g.mode === 'memories' || g.centerId !== undefined;
  const l = memoryView
    ? limit(g, LIMIT_RANGES.memoryGraph, 'graph.query, memory view')
    : limit(g, LIMIT_RANGES.entityGraph, 'graph.query, entity view');
  return { ...g, limit: l };
}

/**
 * Methods outside the engine's request gate (MemoryEngine.serveRequest): those that rebuild the
 * runtimes themselves (a rebuild waits for every request under way, so theirs would wait for
 * itself), the long wait for changes (it reads the store, not the runtimes: a reload must not wait
 * for it), the shutdown (it closes the runtimes once the requests are drained) and the debug
 * methods that never end.
 */
export const OUTSIDE_REQUEST_GATE: ReadonlySet<EngineMethod> = new Set<EngineMethod>([
  'config.reload',
  'pipeline.setMode',
  'team.connect',
  'team.disconnect',
  'events.wait',
  'engine.shutdown',
  'debug.crash',
  'debug.hang',
]);

/** A handler of any method, called with params not yet checked (table wrappers: the gate, global forwarding). */
export type AnyHandler = (e: MemoryEngine, p: unknown, c: CallContext) => unknown;

/** Every other method runs in the gate's shared section: a reload never closes a runtime under it. */
function gated(table: HandlerTable): HandlerTable {
  const out = { ...table } as Record<EngineMethod, AnyHandler>;
  for (const m of Object.keys(table) as EngineMethod[]) {
    if (OUTSIDE_REQUEST_GATE.has(m)) continue;
    const handler = table[m] as AnyHandler;
    out[m] = (e, p, c) => e.serveRequest(() => handler(e, p, c));
  }
  return out as unknown as HandlerTable;
}

export function createHandlers(opts: { allowDebug: boolean; exit: (code: number) => void }): HandlerTable {
  return gated(handlerTable(opts));
}

function handlerTable(opts: { allowDebug: boolean; exit: (code: number) => void }): HandlerTable {
  const debugOnly = () => {
    if (!opts.allowDebug) throw new EngineError('unknown_method', 'Debug methods are disabled.');
  };
  return {
    ...SCHEDULE_HANDLERS,
    ...TEAM_HANDLERS,
    // A retried create (same idempotency key) answers with the memory it already made.
    'memory.create': (e, p) => idempotentCreate(e, obj(p, 'input')),
    // Team memory: who made the server's version rides along (docs/team.md "Surfaces").
    'memory.get': (e, p) => sharedOne(e, e.memories.get(str(p, 'id'), !!p.includeDeleted)),
    'memory.list': (e, p) =>
      sharedPage(e, e.memories.list({ ...(p ?? {}), offset: offset(p), limit: limit(p, LIMIT_RANGES.list, 'memory.list') })),
    'memory.update': async (e, p) => sharedOne(e, await e.memories.update(str(p, 'id'), p.patch)), // an unknown id is not_found before a bad patch
    'memory.delete': (e, p) => e.memories.delete(str(p, 'id'), optString(p.reason, 'reason'), optString(p.who, 'who')),
    'memory.restore': (e, p) => e.memories.restore(str(p, 'id')),
    'memory.listRemoved': (e, p) =>
      e.memories.listRemoved(
        optOneOf(p?.reason, REMOVED_REASONS, 'reason'),
        offset(p),
        limit(p, LIMIT_RANGES.removed, 'memory.listRemoved'),
      ),
    'memory.recordAccess': (e, p) => {
      optStrings(obj(p, 'params').ids, 'ids');
      return e.memories.recordAccess(p.ids ?? []);
    },
    'memory.history': (e, p) => e.memories.history(str(p, 'id')),
    'memory.versions': (e, p) => e.versions.versions(str(p, 'id')),
    'memory.restoreVersion': (e, p) =>
      e.versions.restoreVersion(str(p, 'id'), versionParam(p.version, 'version'), optVersion(p.expectedVersion)),
    'memory.promote': (e, p) => e.memories.promote(str(p, 'id')),
    'memory.typeCounts': (e, p) => e.memories.typeCounts(p?.scope),
    'memory.tagCounts': (e, p) => e.memories.tagCounts(p?.scope),
    'memory.listUntagged': (e, p) => sharedPage(e, e.memories.listUntagged(offset(p), limit(p, LIMIT_RANGES.list, 'memory.listUntagged'))),
    search: (e, p) => e.search.search(searchParams(e, p)),
    'suggestions.list': (e, p) =>
      e.suggestions.list(optOneOf(p?.status, SUGGESTION_STATUSES, 'status'), limit(p, LIMIT_RANGES.suggestions, 'suggestions.list')),
    'suggestions.accept': (e, p) => e.suggestions.accept(str(p, 'id')),
    'suggestions.preview': (e, p) => e.suggestions.preview(str(p, 'id')),
    'suggestions.undo': (e, p) => e.suggestions.undo(str(p, 'id')),
    'suggestions.reject': (e, p) => {
      const id = str(p, 'id');
      e.suggestions.reject(id);
      return { id };
    },
    'suggestions.clear': (e) => ({ cleared: e.suggestions.clear() }),
    'suggestions.scan': async (e) => ({ created: await e.suggestions.scan() }),
    'graph.query': (e, p) => e.graph.view(graphParams(p)),
    'graph.entityMemories': (e, p) =>
      e.graph.entityMemories(str(p, 'entityId'), limit(p, LIMIT_RANGES.entityMemories, 'graph.entityMemories')),
    stats: (e) => e.diagnostics.stats(),
    'encryption.status': (e) => e.encryption.status(),
    'encryption.enable': (e, p) => e.encryption.enable({ keyFile: p?.keyFile === true, ...scopeOf(p?.scope) }),
    'encryption.disable': (e, p) => e.encryption.disable({ ...scopeOf(p?.scope) }),
    'encryption.rotate': (e, p) => e.encryption.rotate({ keyFile: p?.keyFile === true }),
    'encryption.exportRecoveryKey': (e) => e.encryption.exportRecoveryKey(),
    diagnostics: (e) => e.diagnostics.diagnostics(),
    'pipeline.status': (e) => e.pipelines.status(),
    'pipeline.pause': (e) => e.pipelines.pause(),
    'pipeline.resume': (e) => e.pipelines.resume(),
    'pipeline.setMode': (e, p) => e.setPipelineMode(str(p, 'mode') as ParamsOf<'pipeline.setMode'>['mode']),
    'pipeline.diagnostics': (e) => e.pipelines.diagnostics(),
    'reviews.list': (e, p) => e.pipelines.reviews(limit(p, LIMIT_RANGES.reviews, 'reviews.list')),
    'reviews.approve': (e, p) => e.pipelines.approveReview(str(p, 'id')),
    'reviews.reject': (e, p) => {
      const id = str(p, 'id');
      e.pipelines.rejectReview(id);
      return { id };
    },
    'history.pipelineChanges': (e, p) => e.pipelines.changes(limit(p, LIMIT_RANGES.pipelineChanges, 'history.pipelineChanges')),
    'history.undo': (e, p) => e.pipelines.undo(str(p, 'historyId')),
    'documents.ingest': (e, p, ctx) =>
      e.pipelines.ingestDocument(str(p, 'path'), optString(p.title, 'title') || undefined, p.wait !== false, ctx),
    'events.since': (e, p) =>
      e.changes.since(
        optOneOf(p?.store, STORE_NAMES, 'store') ?? 'project',
        cursorParam(p?.since, 0),
        limit(p, LIMIT_RANGES.events, 'events.since'),
      ),
    'events.wait': (e, p, ctx) =>
      e.changes.wait(
        optOneOf(p?.store, STORE_NAMES, 'store') ?? 'project',
        cursorParam(obj(p, 'params').since),
        limit(p, LIMIT_RANGES.events, 'events.wait'),
        waitMs(p.timeoutMs),
        ctx.signal,
      ),
    'webhooks.list': (e) => e.webhooks.list(),
    'webhooks.deliveries': (e, p) =>
      e.webhooks.deliveries(limit(p, LIMIT_RANGES.deliveries, 'webhooks.deliveries'), optString(p?.name, 'name') || undefined, !!p?.failed),
    'webhooks.test': (e, p) => e.webhooks.test(str(p, 'name')),
    'webhooks.secret': (e, p) => e.webhooks.secret(str(p, 'name'), !!p.rotate),
    'webhooks.retry': (e, p) => e.webhooks.retry(optString(p?.name, 'name') || undefined),
    'sessions.log': (e, p) => {
      str(p, 'sessionId');
      if (!Array.isArray(p.events)) throw new EngineError('invalid_input', 'events: must be a list of events');
      return e.sessions.log({ sessionId: p.sessionId, events: p.events, ...(optString(p.agent, 'agent') ? { agent: p.agent! } : {}) });
    },
    'sessions.logTranscript': (e, p) =>
      e.sessions.logTranscript({
        sessionId: str(p, 'sessionId'),
        path: str(p, 'path'),
        ...(optString(p.agent, 'agent') ? { agent: p.agent! } : {}),
        ...(optBool(p.deferEmbedding, 'deferEmbedding') ? { deferEmbedding: true } : {}),
      }),
    'sessions.list': (e, p) => e.sessions.list(optInt(p?.limit, 'limit'), offset(p)),
    'sessions.get': (e, p) => e.sessions.get(str(p, 'sessionId')),
    'sessions.events': (e, p) => e.sessions.events(str(p, 'sessionId'), optInt(p.afterSequence, 'afterSequence'), optInt(p.limit, 'limit')),
    'sessions.restore': (e, p) => e.sessions.restore(str(p, 'sessionId'), optInt(p.budgetTokens, 'budgetTokens')),
    'sessions.search': (e, p) => {
      if (typeof obj(p, 'params').query !== 'string') throw new EngineError('invalid_input', 'query: must be a string');
      optString(p.sessionId, 'sessionId');
      optStrings(p.tags, 'tags');
      return e.sessions.searchChunks(p);
    },
    'sessions.forget': (e, p) =>
      e.sessions.forget({
        sessionId: str(p, 'sessionId'),
        ...(optString(p.reason, 'reason') ? { reason: p.reason! } : {}),
        ...(optString(p.who, 'who') ? { who: p.who! } : {}),
      }),
    'sessions.summary': (e, p) => e.sessions.summary(str(p, 'sessionId')),
    'sessions.writeSummary': (e, p) => {
      if (typeof obj(p, 'params').text !== 'string') throw new EngineError('invalid_input', 'text: must be a string');
      return e.sessions.writeSummary({
        sessionId: str(p, 'sessionId'),
        text: p.text,
        upperSequence: wholeNumber(p.upperSequence, 'upperSequence'),
        expectedEpoch: wholeNumber(p.expectedEpoch, 'expectedEpoch'),
      });
    },
    'sessions.summarize': (e, p) => e.sessions.summarize(str(p, 'sessionId')),
    'scratchpad.read': (e, p) => e.sessions.readScratchpad(str(p, 'sessionId')),
    'scratchpad.write': (e, p) => e.sessions.writeScratchpad(str(p, 'sessionId'), p.items, optString(p.agent, 'agent')),
    'scratchpad.clear': (e, p) => e.sessions.clearScratchpad(str(p, 'sessionId')),
    'notes.store': (e, p) => {
      if (typeof obj(p, 'params').content !== 'string') throw new EngineError('invalid_input', 'content: must be a string');
      optString(p.sessionId, 'sessionId');
      optString(p.noteId, 'noteId');
      optString(p.agent, 'agent');
      return e.sessions.storeNote(p);
    },
    'notes.delete': (e, p) => e.sessions.deleteNote(optString(p.sessionId, 'sessionId'), str(p, 'noteId')),
    'notes.list': (e, p) => e.sessions.listNotes(optString(p?.sessionId, 'sessionId'), optInt(p?.limit, 'limit')),
    recall: (e, p) => {
      const s = searchParams(e, { query: obj(p, 'params').query, ...(p.limit !== undefined ? { limit: p.limit } : {}) });
      optString(p.sessionId, 'sessionId');
      return e.sessions.recall({ ...p, limit: s.limit! });
    },
    'index.rebuild': (e) => ({ memories: e.maintenance.rebuildIndex() }),
    'embeddings.reembed': (e) => ({ queued: e.maintenance.reembed() }),
    export: (e, p) => e.transfer.exportTo(str(p, 'path'), p.scope, optOneOf(p.format, EXPORT_FORMATS, 'format')),
    import: (e, p, ctx) => e.transfer.importFile(str(p, 'path'), ctx),
    'config.reload': (e, p) => e.reloadConfig(p?.settings),
    'secrets.scan': (e, p) => e.maintenance.scanSecrets(p?.redact === true),
    'engine.snapshot': (e) => e.maintenance.snapshotNow(),
    'engine.shutdown': async (e) => {
      const snapshotted = await e.close();
      return { snapshotted };
    },
    'debug.crash': (_e, p) => {
      debugOnly();
      if (p.how === 'exit') opts.exit(3);
      // Thrown outside the request's promise chain: an uncaught exception kills the thread.
      setImmediate(() => {
        throw new Error('debug.crash: deliberate crash of the engine thread');
      });
      return new Promise<never>(() => undefined);
    },
    'debug.hang': (_e, _p, ctx) => {
      debugOnly();
      return new Promise((resolve) => {
        if (ctx.signal.aborted) resolve({ cancelled: true });
        ctx.signal.addEventListener('abort', () => resolve({ cancelled: true }), { once: true });
      });
    },
  } satisfies { [M in keyof EngineMethods]: Handler<M> };
}
