/**
 * MemoryEngine: the composition root of the engine thread. It resolves the workspace's
 * project id (src/core/project), opens the project's store and the global store
 * (scope = global), layers VS Code settings over agent.yaml (./config), and answers every
 * protocol method (protocol.ts) over the core modules. It knows nothing of threads or VS Code:
 * the worker (worker.ts) hosts it in a thread, the tests also host it directly.
 *
 * Pieces another module will replace are marked SEAM and listed in `SEAMS` (diagnostics show
 * them): search (keyword only), suggestions accept (append merge), graph (relations + tags),
 * pipeline status, re-embed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../core/store/store';
import { MemoryService } from '../core/memory/memoryService';
import type { CreateMemoryInput, ListOptions, ListResult, MemoryRecord, MemoryScope } from '../core/memory/types';
import { LIMITS } from '../core/memory/limits';
import { resolveProjectId, type ProjectIdResult } from '../core/project';
import { pipelineMode, type ResolvedConfig } from '../core/config';
import { UserFacingError, errorMessage } from '../core/util/errors';
import { lifecycleFrom, loadEngineConfig, type EngineConfig } from './config';
import { EngineError, cancelledError } from './errors';
import { searchStore } from './seams/keywordSearch';
import { chooseEmbedder, openRetrieval, type Retrieval } from './retrieval';
import { startUpkeep, type Upkeep } from './upkeep';
import { MemoryPipeline } from '../core/pipeline/pipeline';
import type { Embedder } from '../core/embed/types';
import type { GraphBoostProvider, SearchResult } from '../core/search/types';
import { acceptSuggestion, clearSuggestions, listSuggestions, rejectSuggestion } from './seams/suggestions';
import * as pc from './pipelineControl';
import type { DocumentIngestResult, PipelineChange, PipelineDiagnostics, PipelineModeName, PipelineReview } from './protocol';
import { listPendingReviews } from '../core/pipeline/reviews';
import { queryGraph } from './seams/graph';
import { entityCount, entityWithMemories, queryEntityGraph } from './graphView';
import { exportFormatFor, importBatch, readImportItems, writeExportFile, writeJsonlExport, type ImportItem } from './transfer';
import { createdRange } from './createdRange';
import { listUntagged, tagCounts, type TagCounts } from './tagGroups';
import { engineStoreDirs, migrateLegacyStores } from './storeMigration';
import {
  PROTOCOL_VERSION,
  type ConfigSummary, type CreateMemoryResult, type EngineDiagnostics, type EngineEvent, type EngineInit, type EngineStats, type ExportFile, type ExportFormat,
  type EntityMemory, type EntityNode, type GraphData, type GraphParams, type GraphView, type ImportResult, type PipelineStatus, type SearchHit, type SearchParams,
  type SearchResponse, type StoreInfo, type StoreName, type Suggestion,
} from './protocol';

/** Seams not yet wired to their final module, shown by diagnostics. */
export const SEAMS: Record<string, string> = {
  'suggestions.accept/reject': 'SmartStore when the vector side is open; without it the append/latest_wins fallback of src/engine/seams/suggestions.ts (list/clear use src/core/consolidation records)',
  graph: 'graph.query serves the knowledge graph of the project store (src/engine/graphView.ts over src/core/graph); the memory-level view (relationships, shared entities, shared tags) is its fallback',
  pipeline: 'MemoryPipeline on the project store only (the global store gets no extraction, retention or maintenance)',
  reembed: 'memories without a vector in the active space are re-embedded by the backfill (at open and on request); a live switch without restart would use src/core/memory/reembed reembedAll',
};

/** What diagnostics say about the embedder. */
export interface EmbedderInfo {
  provider: string;
  space: string;
  reason: string;
  degraded: boolean;
}

export const GLOBAL_PROJECT_ID = 'global';
const GRAPH_MAX_NODES = 300;
const IMPORT_BATCH = 200;

/** Per-call context given by the RPC server: cancellation and progress. */
export interface CallContext {
  signal: AbortSignal;
  progress(done: number, total: number, message?: string): void;
}

const NO_CONTEXT: CallContext = { signal: new AbortController().signal, progress: () => undefined };

interface Handle {
  name: StoreName;
  store: Store;
  svc: MemoryService;
  lastWriteAt: number;
  /** The vector side (embed-on-write, hybrid search); absent → keyword-only seam. */
  retrieval?: Retrieval;
  /** Access bumps and the expiry sweep (absent when read-only). */
  upkeep?: Upkeep;
}

export interface EngineOptions extends EngineInit {
  now?: () => Date;
  onEvent?: (event: EngineEvent) => void;
  /** How often the snapshot policy is checked (ms). Default 5 s. */
  snapshotTickMs?: number;
}

export { storeFolderName } from './storeLocation';

export class MemoryEngine {
  private readonly startedAt = Date.now();
  private readonly now: () => Date;
  private readonly warnings: string[] = [];
  private snapshotTimer: NodeJS.Timeout | undefined;
  /** The pipeline (docs/pipeline.md: extraction jobs, retention, maintenance) of the project store. */
  private pipeline: MemoryPipeline | undefined;
  /** Background dedup scanner (docs/consolidation.md) of the project store (memory.dedup_scan_interval). */
  private dedupTimer: NodeJS.Timeout | undefined;
  private dedupRun: Promise<number> | undefined;
  private snapshotting = false;
  private closed = false;
  /** pipeline.pause: the job workers stay stopped (also across config reloads) until pipeline.resume. */
  private paused = false;

  private constructor(
    private readonly opts: EngineOptions,
    readonly project: ProjectIdResult,
    private readonly projectHandle: Handle,
    private readonly globalHandle: Handle,
    private cfg: EngineConfig,
    private readonly openMs: number,
    private readonly embedder: Embedder | undefined,
    readonly embedderInfo: EmbedderInfo | undefined,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.paused = !!opts.pipelinePaused;
  }

  static async open(opts: EngineOptions): Promise<MemoryEngine> {
    const t0 = performance.now();
    const root = opts.workspaceRoot;
    const project: ProjectIdResult = root
      ? await resolveProjectId(root)
      : { id: 'no-workspace', kind: 'canonical', detail: 'no folder is open' };
    const cfg = await loadEngineConfig(root, opts.settings);
    const warnings: string[] = [...(project.warnings ?? [])];
    const dirs = engineStoreDirs(opts, project.id);
    const projectStore = await openStore(dirs.project, { ...opts, exclusive: !!opts.exclusive }, warnings);
    let globalStore: Store;
    try {
      globalStore = await openStore(dirs.global, { ...opts, exclusive: false }, warnings);
      if (opts.home) await migrateLegacyStores(opts, project.id, [projectStore, globalStore], warnings);
    } catch (e) {
      await projectStore.close();
      throw e;
    }
    const handle = (name: StoreName, store: Store, projectId: string): Handle => ({
      name, store, svc: new MemoryService(store, serviceOptions(projectId, cfg.config, opts.now)), lastWriteAt: 0,
    });
    const handles = [handle('project', projectStore, project.id), handle('global', globalStore, GLOBAL_PROJECT_ID)] as const;
    // Warnings of the vector side go to the list until the engine exists, then to the engine.
    const sink: { warn: (m: string) => void } = { warn: (m) => { warnings.push(m); } };
    // The graph boost comes from the pipeline, which starts after the engine exists: bound late.
    const boost: { fn?: GraphBoostProvider } = {};
    const graphBoost: GraphBoostProvider = (q, deadline) => boost.fn?.(q, deadline) ?? { memoryIds: new Set(), timedOut: false };
    const { embedder, info } = await openVectorSide(handles, cfg.config, (m) => sink.warn(m), opts.now, graphBoost);
    const engine = new MemoryEngine(opts, project, handles[0], handles[1], cfg, performance.now() - t0, embedder, info);
    for (const w of [...warnings, ...projectStore.warnings, ...globalStore.warnings]) engine.warn(w);
    sink.warn = (m) => engine.warn(m);
    boost.fn = engine.graphBoost;
    for (const i of cfg.summary.issues) engine.warn(`config: ${i.key ? `${i.key}: ` : ''}${i.message}${i.source ? ` (${i.source})` : ''}`);
    engine.startSnapshotTimer();
    engine.startUpkeep();
    engine.startPipeline();
    engine.startDedupScanner();
    return engine;
  }

  get projectId(): string {
    return this.project.id;
  }

  get config(): ResolvedConfig {
    return this.cfg.config;
  }

  get startupWarnings(): string[] {
    return [...this.warnings];
  }

  get openDurationMs(): number {
    return this.openMs;
  }

  // ── memories ──────────────────────────────────────────────────────────────────────────

  async create(input: CreateMemoryInput): Promise<CreateMemoryResult> {
    if (!input || typeof input !== 'object') throw new EngineError('invalid_input', 'input: must be an object');
    const h = this.handleForScope(input.scope === 'global' ? 'global' : 'project');
    const result = await this.write(h, () => (h.retrieval ? h.retrieval.create(input) : h.svc.create(input)));
    if (result.status === 'created') this.changed('created', [result.memory.id], h.name);
    return result;
  }

  get(id: string, includeDeleted = false): MemoryRecord | null {
    const found = this.locate(id, includeDeleted);
    return found ? found.record : null;
  }

  /** Both stores, project first then global, paged as one list when no scope is given. */
  list(opts: ListOptions = {}): ListResult {
    if (opts.scope === 'project' || opts.scope === 'global') return this.handleForScope(opts.scope).svc.list(opts);
    if (opts.scope !== undefined) throw new EngineError('invalid_input', `scope: must be "project" or "global", got ${JSON.stringify(opts.scope)}`);
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? LIMITS.listDefault;
    const p = this.projectHandle.svc.list({ ...opts, offset, limit });
    const items = [...p.items];
    // Offsets past the project's items continue into the global store.
    const gOffset = Math.max(0, offset - p.total);
    const need = limit - items.length;
    const g = this.globalHandle.svc.list({ ...opts, offset: gOffset, limit: Math.max(1, need) });
    if (need > 0) items.push(...g.items.slice(0, need));
    return { items, total: p.total + g.total, offset, limit };
  }

  typeCounts(scope?: MemoryScope): Record<string, number> {
    const out: Record<string, number> = {};
    for (const h of this.handlesFor(scope)) {
      for (const [type, n] of Object.entries(countByType(h.store))) out[type] = (out[type] ?? 0) + n;
    }
    return out;
  }

  /** Live memories per tag over both stores (or one), and how many have no tag. */
  tagCounts(scope?: MemoryScope): TagCounts {
    const out: TagCounts = { tags: {}, untagged: 0 };
    for (const h of this.handlesFor(scope)) {
      const c = tagCounts(h.store, h.svc.projectId);
      for (const [tag, n] of Object.entries(c.tags)) out.tags[tag] = (out.tags[tag] ?? 0) + n;
      out.untagged += c.untagged;
    }
    return out;
  }

  /** Untagged memories, paged across the project store then the global one (like list). */
  listUntagged(offset: number, limit: number): ListResult {
    if (!Number.isInteger(offset) || offset < 0) throw new EngineError('invalid_input', `offset: must be a whole number ≥ 0, got ${JSON.stringify(offset)}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.listMax) throw new EngineError('invalid_input', `limit: must be a whole number from 1 to ${LIMITS.listMax}, got ${JSON.stringify(limit)}`);
    const p = listUntagged(this.projectHandle.store, this.projectHandle.svc.projectId, offset, limit);
    const g = listUntagged(this.globalHandle.store, this.globalHandle.svc.projectId, Math.max(0, offset - p.total), limit);
    return { items: [...p.items, ...g.items].slice(0, limit), total: p.total + g.total, offset, limit };
  }

  async update(id: string, patch: Parameters<MemoryService['update']>[1]): Promise<MemoryRecord> {
    const found = this.mustLocate(id);
    if (!patch || typeof patch !== 'object') throw new EngineError('invalid_input', 'patch: must be an object');
    const target: StoreName | undefined = patch.scope === 'global' ? 'global' : patch.scope === 'project' ? 'project' : undefined;
    if (target && target !== found.handle.name) return this.move(found.handle, found.record, target, patch);
    const h = found.handle;
    const rec = await this.write(h, () => (h.retrieval ? h.retrieval.update(id, patch) : h.svc.update(id, patch)));
    this.changed('updated', [id], found.handle.name);
    return rec;
  }

  delete(id: string, reason?: string): MemoryRecord {
    const found = this.mustLocate(id);
    const rec = this.write(found.handle, () => found.handle.svc.delete(id, reason ? { reason } : {}));
    this.changed('deleted', [id], found.handle.name);
    return rec;
  }

  restore(id: string): MemoryRecord {
    const found = this.mustLocate(id, true);
    const rec = this.write(found.handle, () => found.handle.svc.restore(id));
    this.changed('restored', [id], found.handle.name);
    return rec;
  }

  history(id: string) {
    return this.mustLocate(id, true).handle.svc.history(id);
  }

  /** Manual promote (docs/lifecycle.md): no TTL any more (permanent). */
  promote(id: string): MemoryRecord {
    const found = this.mustLocate(id);
    const rec = this.write(found.handle, () => found.handle.svc.update(id, { ttlSeconds: null, why: 'promoted' }));
    this.changed('promoted', [id], found.handle.name);
    return rec;
  }

  // ── search, suggestions, graph ────────────────────────────────────────────────────────

  async search(params: SearchParams): Promise<SearchResponse> {
    const t0 = performance.now();
    if (!params || typeof params.query !== 'string') throw new EngineError('invalid_input', 'query: must be a string');
    const { default_limit: def, max_limit: max } = this.cfg.config.search;
    const limit = params.limit ?? def;
    if (!Number.isInteger(limit) || limit < 1 || limit > max) {
      throw new EngineError('invalid_input', `limit: must be a whole number from 1 to ${max} (search.max_limit), got ${JSON.stringify(params.limit)}`);
    }
    const filters = { ...(params.types ? { types: params.types } : {}), ...(params.tags ? { tags: params.tags } : {}) };
    // The core's search filters (src/core/search/filters.ts) have no date range: with one, ask
    // each store for search.max_limit candidates and keep those in the range (createdRange.ts).
    const range = createdRange(params);
    const fetchLimit = range ? max : limit;
    const hits: SearchHit[] = [];
    const legs = new Set<SearchHit['legs'] extends Partial<Record<infer L, number>> ? L : never>();
    for (const h of this.handlesFor(params.scope)) {
      if (h.retrieval) {
        const r = await h.retrieval.search({
          query: params.query, limit: fetchLimit, minScore: this.cfg.config.search.min_score, ...filters,
          graphBoost: this.cfg.config.memory.pipelineV2.graphEnabled,
        });
        if (r.legs.keyword) legs.add('keyword');
        if (r.legs.vector) legs.add('vector');
        for (const w of r.warnings) this.warn(`search: ${w}`);
        const rids: number[] = [];
        for (const res of r.results) {
          if (range && !range.has(res.memory.createdAt)) continue;
          const rec = h.svc.get(res.memory.id);
          if (!rec) continue;
          rids.push(rec.rid);
          hits.push({ memory: res.memory, content: rec.content, score: res.finalScore, legs: legScores(res), store: h.name, matchType: res.matchType });
        }
        // docs/lifecycle.md: each hit is an access (TTL extended, promoted at promote_access_count), written after the answer.
        if (params.recordAccess !== false) h.upkeep?.recordAccess(rids);
      } else {
        // SEAM: keyword-only when the vector side could not open (see diagnostics).
        legs.add('keyword');
        for (const f of searchStore(h.store, { projectId: h.svc.projectId, query: params.query, limit: fetchLimit, now: this.now(), ...filters })) {
          if (range && !range.has(f.memory.createdAt)) continue;
          if (f.keyword >= this.cfg.config.search.min_score) hits.push({ memory: f.memory, content: f.content, score: f.keyword, legs: { keyword: f.keyword }, store: h.name });
        }
      }
    }
    // Both stores' scores are on the same scale only within one kind of search; ties by recency.
    hits.sort((a, b) => b.score - a.score || b.memory.createdAt.localeCompare(a.memory.createdAt));
    return { query: params.query, hits: hits.slice(0, limit), legsUsed: [...legs], tookMs: performance.now() - t0 };
  }

  suggestions(status: Suggestion['status'] = 'pending', limit = 50): Suggestion[] {
    return listSuggestions(this.projectHandle.store, status, Math.max(1, Math.min(limit, 200)));
  }

  async acceptSuggestion(id: string): Promise<MemoryRecord> {
    const h = this.projectHandle;
    if (h.retrieval) {
      const retrieval = h.retrieval;
      const r = await this.write(h, () => retrieval.accept(id));
      this.changed('merged', [r.memory.id, r.absorbed.id], 'project');
      return r.memory;
    }
    // SEAM: without the vector side, an append/latest_wins merge over SQL.
    const rec = this.write(h, () => acceptSuggestion(h.store, h.svc, id, this.cfg.config.memory.merge_strategy, this.now()));
    this.changed('merged', [rec.id, ...rec.mergedFrom], 'project');
    return rec;
  }

  rejectSuggestion(id: string): void {
    const h = this.projectHandle;
    const retrieval = h.retrieval;
    this.write(h, () => (retrieval ? retrieval.reject(id) : rejectSuggestion(h.store, id, this.now())));
  }

  clearSuggestions(): number {
    const h = this.projectHandle;
    return this.write(h, () => clearSuggestions(h.store, this.now()));
  }

  graph(params: GraphParams = {}): GraphData {
    const parts = this.handlesFor(undefined).map((h) =>
      params.centerId && !this.hasMemory(h, params.centerId) ? { nodes: [], edges: [], truncated: false } : queryGraph(h.store, params, GRAPH_MAX_NODES),
    );
    if (params.centerId && parts.every((p) => p.nodes.length === 0)) throw new EngineError('not_found', `No memory with id ${params.centerId}.`);
    return {
      nodes: parts.flatMap((p) => p.nodes),
      edges: parts.flatMap((p) => p.edges),
      truncated: parts.some((p) => p.truncated),
    };
  }

  /**
   * graph.query: the knowledge graph of the project store (the pipeline writes it there), or
   * the memory view when asked for, when the graph is empty, or when graphEnabled is off.
   */
  graphView(params: GraphParams = {}): GraphView {
    if (params.mode !== undefined && params.mode !== 'entities' && params.mode !== 'memories') {
      throw new EngineError('invalid_input', `mode: must be "entities" or "memories", got ${JSON.stringify(params.mode)}`);
    }
    if (params.minMentions !== undefined && (typeof params.minMentions !== 'number' || !Number.isFinite(params.minMentions))) {
      throw new EngineError('invalid_input', 'minMentions: must be a number');
    }
    if (params.entityTypes !== undefined && !Array.isArray(params.entityTypes)) throw new EngineError('invalid_input', 'entityTypes: must be an array of strings');
    if (params.search !== undefined && typeof params.search !== 'string') throw new EngineError('invalid_input', 'search: must be a string');
    const memoryView = (notice?: string): GraphData => ({ ...this.graph({ ...params, limit: Math.min(params.limit ?? 150, GRAPH_MAX_NODES) }), mode: 'memories', ...(notice ? { notice } : {}) });
    if (params.mode === 'memories' || params.centerId) return memoryView();
    const store = this.projectHandle.store;
    if (!this.cfg.config.memory.pipelineV2.graphEnabled) {
      return memoryView('The knowledge graph is off: enable memory.pipelineV2.graphEnabled and the pipeline to extract entities. Showing memories instead.');
    }
    if (entityCount(store) === 0) {
      return memoryView('The knowledge graph is empty: enable memory.pipelineV2.graphEnabled and the pipeline to extract entities. Showing memories instead.');
    }
    return queryEntityGraph(store, params);
  }

  /** graph.entityMemories: an entity of the knowledge graph and the memories mentioning it. */
  entityMemories(entityId: string, limit?: number): { entity: EntityNode; memories: EntityMemory[] } {
    const found = entityWithMemories(this.projectHandle.store, entityId, limit);
    if (!found) throw new EngineError('not_found', `No entity with id ${entityId}.`);
    return found;
  }

  // ── stats, diagnostics, pipeline ──────────────────────────────────────────────────────

  stats(): EngineStats {
    const pending = this.projectHandle.store.get<{ n: number }>(
      `SELECT count(*) AS n FROM consolidation_suggestions WHERE status = 'pending'`,
    );
    return { project: this.storeInfo(this.projectHandle), global: this.storeInfo(this.globalHandle), suggestionsPending: Number(pending?.n ?? 0) };
  }

  pipelineStatus(): PipelineStatus {
    const base = this.opts.restricted
      ? { state: 'off' as const, mode: pipelineMode(this.cfg.config), jobs: {}, detail: 'Restricted mode: this workspace is not trusted, so memories are read-only and the pipeline does not run.' }
      : this.pipelineState();
    const pendingReviews = Number(this.projectHandle.store.get<{ n: number }>(`SELECT count(*) AS n FROM pipeline_reviews WHERE status = 'pending'`)?.n ?? 0);
    if (this.paused && !this.opts.restricted && base.mode !== 'off') {
      const waiting = (base.jobs.pending ?? 0) + (base.jobs.leased ?? 0);
      return { ...base, state: 'idle', detail: `Paused: ${waiting} job(s) wait until the pipeline is resumed.`, paused: true, pendingReviews };
    }
    return { ...base, paused: this.paused, pendingReviews, ...(this.opts.restricted ? { restricted: true } : {}) };
  }

  // ── pipeline controls (src/engine/pipelineControl.ts) ─────────────────────────────────

  async pausePipeline(): Promise<PipelineStatus> {
    this.mustControlPipeline();
    this.paused = true;
    if (this.pipeline) await pc.pauseWorkers(this.pipeline);
    return this.pipelineStateChanged();
  }

  async resumePipeline(): Promise<PipelineStatus> {
    this.mustControlPipeline();
    this.paused = false;
    await this.pipeline?.reconfigure(); // starts the job workers unless the mode is off
    return this.pipelineStateChanged();
  }

  /** The mode's flags become settings overrides of this engine (the host persists them in workspace settings). */
  async setPipelineMode(mode: PipelineModeName): Promise<{ mode: PipelineModeName; settings: Record<string, boolean>; status: PipelineStatus }> {
    const settings = pc.modeSettings(mode);
    this.mustControlPipeline();
    await this.reloadConfig({ ...(this.opts.settings ?? {}), ...settings });
    return { mode, settings, status: this.pipelineStatus() };
  }

  async pipelineDiagnostics(): Promise<PipelineDiagnostics> {
    return pc.pipelineDiagnostics(this.projectHandle.store, this.cfg.config.memory.pipelineV2, this.now(), {
      status: this.pipelineStatus(), ...(this.embedderInfo ? { embedder: this.embedderInfo } : {}),
    });
  }

  reviews(limit = 100): PipelineReview[] {
    return listPendingReviews(this.projectHandle.store, limit).map(pc.toReview);
  }

  approveReview(id: string): ReturnType<MemoryPipeline['approveReview']> {
    const p = this.mustControlPipeline();
    const r = this.write(this.projectHandle, () => p.approveReview(id, 'user'));
    this.afterPipelineWrite();
    return r;
  }

  rejectReview(id: string): void {
    const p = this.mustControlPipeline();
    this.write(this.projectHandle, () => p.rejectReview(id, 'user'));
    this.emit({ type: 'pipeline.state', status: this.pipelineStatus() });
  }

  pipelineChanges(limit?: number): PipelineChange[] {
    return pc.pipelineChanges(this.projectHandle.store, limit);
  }

  undoHistory(historyId: string): ReturnType<MemoryPipeline['undo']> {
    const p = this.mustControlPipeline();
    const r = this.write(this.projectHandle, () => p.undo(historyId, 'user'));
    this.afterPipelineWrite(r.memoryId);
    return r;
  }

  async ingestDocument(file: string, title: string | undefined, wait: boolean, ctx: CallContext = NO_CONTEXT): Promise<DocumentIngestResult> {
    const p = this.mustControlPipeline();
    const h = this.projectHandle;
    const doc = pc.readDocumentFile(file, this.cfg.config.memory.pipelineV2.documentMaxContentBytes);
    const row = this.write(h, () => p.ingestDocument({ sourceType: 'file', url: file, title: title ?? doc.title, content: doc.content }));
    if (!wait) return { documentId: row.id, status: row.status, chunkCount: 0, memoryIds: [], error: null };
    const r = await this.write(h, () => pc.waitForDocument(h.store, p, row.id, ctx.signal, ctx.progress));
    if (r.memoryIds.length) {
      this.changed('created', r.memoryIds, 'project');
      h.retrieval?.kickBackfill(); // chunks written without a vector get theirs in the background
    }
    return r;
  }

  /** The project pipeline, or a clear error when it cannot act (restricted, read-only, not started). */
  private mustControlPipeline(): MemoryPipeline {
    if (this.opts.restricted) throw new EngineError('store_read_only', 'This workspace is not trusted: Agent Memory runs in restricted mode (read-only, no pipeline). Trust the workspace to change memories.');
    if (this.projectHandle.store.isReadOnly) throw new EngineError('store_read_only', 'The project memory store is open read-only because another VS Code window owns it; the pipeline runs there.');
    if (!this.pipeline) throw new EngineError('engine_unavailable', 'The pipeline did not start (see the engine warnings).');
    return this.pipeline;
  }

  private pipelineStateChanged(): PipelineStatus {
    const status = this.pipelineStatus();
    this.emit({ type: 'pipeline.state', status });
    return status;
  }

  private afterPipelineWrite(memoryId?: string): void {
    this.changed('updated', memoryId ? [memoryId] : [], 'project');
    this.emit({ type: 'pipeline.state', status: this.pipelineStatus() });
  }

  private pipelineState(): PipelineStatus {
    const mode = pipelineMode(this.cfg.config);
    const jobs: Record<string, number> = {};
    for (const r of this.projectHandle.store.all('SELECT status, count(*) AS n FROM memory_jobs GROUP BY status')) jobs[String(r.status)] = Number(r.n);
    const waiting = (jobs.pending ?? 0) + (jobs.leased ?? 0);
    if (mode === 'off') return { state: 'off', mode, jobs, detail: 'The extraction pipeline is off (memory.pipelineV2.enabled is false).' };
    const p = this.pipeline?.status();
    if (!p || !p.running) return { state: 'degraded', mode, jobs, detail: `${waiting} extraction job(s) waiting: the pipeline worker is not running${this.pipeline ? '' : ' (see the warnings)'}.` };
    if (p.waitingForModel) return { state: 'degraded', mode, jobs, detail: `Waiting for the model since ${p.waitingSince}; ${waiting} job(s) waiting.` };
    if (p.consecutiveFailures > 0) {
      return { state: 'degraded', mode, jobs, detail: `${p.consecutiveFailures} failure(s) in a row (is Ollama running at ${this.cfg.config.memory.pipelineV2.ollamaUrl}?); ${waiting} job(s) waiting.` };
    }
    return {
      state: waiting > 0 ? 'running' : 'idle', mode, jobs,
      detail: `${waiting} job(s) waiting, ${p.jobsProcessed} processed${p.pendingReviews ? `, ${p.pendingReviews} review(s) pending` : ''}.`,
    };
  }

  diagnostics(): EngineDiagnostics {
    return {
      protocolVersion: PROTOCOL_VERSION,
      projectId: this.project.id,
      projectIdKind: this.project.kind,
      ...(this.opts.workspaceRoot ? { workspaceRoot: this.opts.workspaceRoot } : {}),
      node: process.version,
      uptimeMs: Date.now() - this.startedAt,
      openMs: this.openMs,
      stats: this.stats(),
      pipeline: this.pipelineStatus(),
      config: this.cfg.summary,
      warnings: [...this.warnings],
      ...(this.embedderInfo ? { embedder: this.embedderInfo } : {}),
      seams: { ...SEAMS, ...(this.projectHandle.retrieval ? {} : { search: 'keyword (FTS4 + bm25) only: the vector side did not open (see warnings)' }) },
    };
  }

  // ── maintenance ───────────────────────────────────────────────────────────────────────

  /** Rebuilds the full-text index of both stores from the memories table. */
  rebuildIndex(): number {
    let n = 0;
    for (const h of this.writableHandles()) {
      this.write(h, () => h.store.transaction((tx) => ['memories_fts', 'memories_exact'].forEach((t) => tx.run(`INSERT INTO ${t}(${t}) VALUES ('rebuild')`))));
      n += Number(h.store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL')!.n);
    }
    this.changed('reindexed', [], 'both');
    return n;
  }

  /**
   * Embeds, in the background, every live memory that has no vector in the active embedding
   * space (imported, embedded by another model, failed before). Returns how many were queued.
   */
  reembed(): number {
    let n = 0;
    for (const h of this.writableHandles()) {
      if (!h.retrieval || !this.embedder) continue;
      n += this.write(h, () => queueMissingVectors(h.store, this.embedder!.space));
      h.retrieval.kickBackfill();
    }
    return n;
  }

  exportTo(file: string, scope?: MemoryScope, format?: ExportFormat): { path: string; count: number; bytes: number } {
    if ((format ?? exportFormatFor(file)) === 'jsonl') return this.exportJsonl(file, scope);
    const memories: MemoryRecord[] = [];
    for (const h of this.handlesFor(scope)) {
      for (const r of h.store.all('SELECT id FROM memories WHERE deleted_at IS NULL ORDER BY created_at, rid')) {
        memories.push(h.svc.get(String(r.id))!);
      }
    }
    const data: ExportFile = { format: 'agent-memory-export', version: 1, exportedAt: this.now().toISOString(), projectId: this.project.id, memories };
    return { path: file, count: memories.length, bytes: writeExportFile(file, data) };
  }

  /** JSONL: header + one memory per line, read back from the stores as they are written out. */
  private exportJsonl(file: string, scope?: MemoryScope): { path: string; count: number; bytes: number } {
    const handles = this.handlesFor(scope);
    const count = handles.reduce((n, h) => n + Number(h.store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL')!.n), 0);
    function* records(): Generator<MemoryRecord> {
      for (const h of handles) {
        for (const r of h.store.all('SELECT id FROM memories WHERE deleted_at IS NULL ORDER BY created_at, rid')) {
          const m = h.svc.get(String(r.id));
          if (m) yield m;
        }
      }
    }
    const bytes = writeJsonlExport(file, { exportedAt: this.now().toISOString(), projectId: this.project.id, count }, records());
    return { path: file, count, bytes };
  }

  /**
   * Import of any supported file (JSONL, JSON export, plain array) through the RPC: batches of
   * IMPORT_BATCH, each one durable transaction keeping the original created_at; between batches
   * it yields to the event loop so a cancel can arrive (what was imported stays). Exact
   * duplicates are counted, not added; bad lines are reported with their line numbers.
   */
  async importFile(file: string, ctx: CallContext = NO_CONTEXT): Promise<ImportResult> {
    const { format, items } = readImportItems(file);
    const result: ImportResult = { total: items.length, created: 0, duplicates: 0, skipped: 0, errors: [], format };
    const ids: Record<StoreName, string[]> = { project: [], global: [] };
    const fail = (it: ImportItem, message: string) => result.errors.push({ index: it.index, ...(it.line !== undefined ? { line: it.line } : {}), message });
    try {
      for (let start = 0; start < items.length; start += IMPORT_BATCH) {
        await new Promise((r) => setImmediate(r));
        if (ctx.signal.aborted) throw cancelledError();
        const batch = items.slice(start, start + IMPORT_BATCH);
        for (const name of ['project', 'global'] as const) {
          const mine = batch.filter((it): it is Extract<ImportItem, { input: CreateMemoryInput }> => 'input' in it && (it.input.scope === 'global') === (name === 'global'));
          if (!mine.length) continue;
          const h = this.handleForScope(name);
          for (const r of this.write(h, () => importBatch(h.store, h.svc, mine))) {
            if (r.status === 'created') { result.created++; ids[name].push(r.id!); }
            else if (r.status === 'duplicate') result.duplicates++;
            else if (r.status === 'skipped') result.skipped++;
            else fail(r.item, `${r.item.line !== undefined ? `line ${r.item.line}` : `item ${r.item.index}`}: ${r.message}`);
          }
        }
        for (const it of batch) if ('invalid' in it) fail(it, it.invalid);
        ctx.progress(Math.min(start + IMPORT_BATCH, items.length), items.length, `${result.created} created`);
      }
    } finally {
      for (const name of ['project', 'global'] as const) {
        if (!ids[name].length) continue;
        this.changed('imported', ids[name], name);
        this.handleForScope(name).retrieval?.kickBackfill(); // imported rows wait for their vectors
      }
    }
    result.errors.sort((a, b) => a.index - b.index);
    return result;
  }

  async reloadConfig(settings?: Record<string, unknown>): Promise<ConfigSummary> {
    if (settings) this.opts.settings = settings;
    this.cfg = await loadEngineConfig(this.opts.workspaceRoot, this.opts.settings);
    // MemoryService holds the lifecycle settings: rebuild both over the same stores.
    for (const [h, projectId] of [[this.projectHandle, this.project.id], [this.globalHandle, GLOBAL_PROJECT_ID]] as const) {
      h.svc = new MemoryService(h.store, serviceOptions(projectId, this.cfg.config, this.opts.now));
      if (h.retrieval && this.embedder) {
        // The write path holds the memory service and the consolidation settings: reopen it over the
        // same store and index file (saved on close). Changing the embedder needs a restart.
        await h.retrieval.close();
        h.retrieval = undefined;
        try {
          h.retrieval = await openRetrieval(h.store, h.svc, this.embedder, this.cfg.config, (m) => this.warn(m), this.opts.now,
            h.name === 'project' ? this.graphBoost : undefined);
        } catch (e) {
          this.warn(`${h.name} store: the vector index could not reopen (${errorMessage(e)}): search is keyword-only`);
        }
      }
    }
    this.startUpkeep(); // new lifecycle settings and cleanup interval
    this.startDedupScanner(); // new dedup_scan_interval
    await this.pipeline?.reconfigure(); // reads the live config: start/stop its workers
    if (this.paused && this.pipeline) await pc.pauseWorkers(this.pipeline); // a reload does not undo pipeline.pause
    for (const i of this.cfg.summary.issues) this.warn(`config: ${i.key ? `${i.key}: ` : ''}${i.message}${i.source ? ` (${i.source})` : ''}`);
    this.emit({ type: 'pipeline.state', status: this.pipelineStatus() });
    return this.cfg.summary;
  }

  // ── snapshots and shutdown ────────────────────────────────────────────────────────────

  /** Snapshots both stores now; returns the sequence numbers they cover. */
  async snapshotNow(): Promise<{ project: number; global: number }> {
    for (const h of this.writableHandles()) {
      await snapshotHandle(h);
      this.emit({ type: 'snapshot', store: h.name, seq: h.store.stats().snapshotSeq });
    }
    return { project: this.projectHandle.store.stats().snapshotSeq, global: this.globalHandle.store.stats().snapshotSeq };
  }

  /** The snapshot policy (docs/storage.md): when idle, or on log size / age thresholds. */
  async maybeSnapshot(nowMs = Date.now()): Promise<StoreName[]> {
    if (this.snapshotting || this.closed) return [];
    const s = this.cfg.config.store;
    const taken: StoreName[] = [];
    this.snapshotting = true;
    try {
      for (const h of this.writableHandles()) {
        const st = h.store.stats();
        const idle = st.seq > st.snapshotSeq && nowMs - h.lastWriteAt >= s.snapshotIdleMs;
        if (idle || h.store.snapshotDue({ logBytes: s.snapshotLogBytes, maxAgeMs: s.snapshotMaxAgeMs }, nowMs)) {
          await snapshotHandle(h);
          taken.push(h.name);
          this.emit({ type: 'snapshot', store: h.name, seq: h.store.stats().snapshotSeq });
        }
      }
    } catch (e) {
      this.warn(`snapshot failed (the operation log still holds every write): ${errorMessage(e)}`);
    } finally {
      this.snapshotting = false;
    }
    return taken;
  }

  /** Clean shutdown: snapshot both stores and release their locks. */
  async close(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    for (const h of [this.projectHandle, this.globalHandle]) h.upkeep?.close();
    clearInterval(this.dedupTimer);
    await this.dedupRun;
    await this.pipeline?.stop({ graceMs: 2000 }).catch((e) => this.warn(`pipeline stop: ${errorMessage(e)}`));
    const results = await Promise.allSettled([closeHandle(this.projectHandle), closeHandle(this.globalHandle)]);
    this.embedder?.dispose();
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length) throw new EngineError('internal', `Closing the memory stores failed: ${failed.map((f) => errorMessage(f.reason)).join('; ')}`);
    return true;
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────

  private startUpkeep(): void {
    if (this.opts.restricted) return; // untrusted workspace: no access bumps, no expiry sweep
    for (const h of [this.projectHandle, this.globalHandle]) {
      h.upkeep?.close();
      h.upkeep = startUpkeep(h.store, this.cfg.config, {
        onExpired: (ids) => this.changed('deleted', ids, h.name),
        onPromoted: (ids) => this.changed('promoted', ids, h.name),
        onWarning: (m) => this.warn(m),
      }, this.now);
    }
  }

  /** Graph-boosted search (docs/pipeline.md): memories linked to the query's entities (memory.pipelineV2.graphEnabled). */
  private readonly graphBoost: GraphBoostProvider = (query) => {
    const r = this.pipeline?.graphBoost(query);
    return { memoryIds: new Set(r?.memoryIds ?? []), timedOut: r?.timedOut ?? false };
  };

  private startPipeline(): void {
    const h = this.projectHandle;
    if (h.store.isReadOnly || this.opts.restricted) return;
    try {
      this.pipeline = new MemoryPipeline({
        store: h.store,
        projectId: this.project.id,
        // Only called when extraction jobs run (memory.pipelineV2.enabled); Ollama on 127.0.0.1 by default.
        // Follows config reloads (the Ollama URL/model may change without a restart).
        llm: pc.liveOllama(() => this.cfg.config.memory.pipelineV2),
        ...(this.embedder ? { embedder: this.embedder } : {}),
        config: () => this.cfg.config.memory.pipelineV2,
        minScore: this.cfg.config.search.min_score,
        ...(this.opts.now ? { now: this.opts.now } : {}),
        onEvent: (e) => {
          if (e.type === 'completed') this.changed('updated', e.job.memoryId ? [e.job.memoryId] : [], 'project');
          else if (e.type === 'failed' && e.status === 'dead') this.warn(`pipeline: job ${e.job.id} (${e.job.jobType}) failed for good: ${e.error}`);
          else if (e.type === 'tick-error') this.warn(`pipeline: ${e.error}`);
          if (e.type === 'completed' || e.type === 'failed') this.emit({ type: 'pipeline.state', status: this.pipelineStatus() });
        },
      });
      this.pipeline.start();
      // Stopped before their first tick (scheduled, not run yet): nothing is leased.
      if (this.paused) void pc.pauseWorkers(this.pipeline);
    } catch (e) {
      this.pipeline = undefined;
      this.warn(`the pipeline could not start: ${errorMessage(e)}`);
    }
  }

  private startDedupScanner(): void {
    clearInterval(this.dedupTimer);
    if (!this.projectHandle.retrieval || this.projectHandle.store.isReadOnly || this.opts.restricted) return;
    this.dedupTimer = setInterval(() => void this.scanDuplicates(), this.cfg.config.memory.dedup_scan_interval);
    this.dedupTimer.unref();
  }

  /** One pass of the dedup scanner over the project store; how many suggestions it created. */
  scanDuplicates(): Promise<number> {
    const h = this.projectHandle;
    if (!h.retrieval || h.store.isReadOnly || this.closed) return Promise.resolve(0);
    this.dedupRun ??= h.retrieval.dedupScan(this.project.id)
      .then((n) => n, (e) => {
        this.warn(`dedup scan failed: ${errorMessage(e)}`);
        return 0;
      })
      .finally(() => { this.dedupRun = undefined; });
    return this.dedupRun;
  }

  /** Runs the expiry sweep of both stores now (the scheduler runs it every memory.cleanup_interval). */
  sweepExpired(): string[] {
    return [this.projectHandle, this.globalHandle].flatMap((h) => h.upkeep?.sweep() ?? []);
  }

  private startSnapshotTimer(): void {
    const tick = this.opts.snapshotTickMs ?? 5000;
    if (tick <= 0) return;
    this.snapshotTimer = setInterval(() => void this.maybeSnapshot(), tick);
    this.snapshotTimer.unref();
  }

  private write<T>(h: Handle, fn: () => T): T {
    if (this.closed) throw new EngineError('engine_stopped', 'The memory engine is shutting down.');
    if (this.opts.restricted) {
      throw new EngineError('store_read_only', 'This workspace is not trusted: Agent Memory runs in restricted mode and changes no memories. Trust the workspace to make changes.');
    }
    if (h.store.isReadOnly) {
      throw new EngineError('store_read_only', `The ${h.name} memory store is open read-only because another VS Code window owns it; changes are only possible there.`);
    }
    const done = () => { h.lastWriteAt = Date.now(); };
    let result: T;
    try {
      result = fn();
    } catch (e) {
      done();
      throw e;
    }
    // Async writes (embed, then commit): the write happened when the promise settles.
    if (result instanceof Promise) return result.finally(done) as T;
    done();
    return result;
  }

  private handleForScope(scope: StoreName): Handle {
    return scope === 'global' ? this.globalHandle : this.projectHandle;
  }

  private handlesFor(scope: MemoryScope | undefined): Handle[] {
    if (scope === undefined) return [this.projectHandle, this.globalHandle];
    if (scope === 'project' || scope === 'global') return [this.handleForScope(scope)];
    throw new EngineError('invalid_input', `scope: must be "project" or "global", got ${JSON.stringify(scope)}`);
  }

  private writableHandles(): Handle[] {
    return [this.projectHandle, this.globalHandle].filter((h) => !h.store.isReadOnly);
  }

  private hasMemory(h: Handle, id: string): boolean {
    return !!h.store.get('SELECT 1 FROM memories WHERE id = ? AND deleted_at IS NULL', [id]);
  }

  private locate(id: string, includeDeleted = false): { handle: Handle; record: MemoryRecord } | undefined {
    if (typeof id !== 'string' || !id) throw new EngineError('invalid_input', 'id: must be a non-empty string');
    for (const handle of [this.projectHandle, this.globalHandle]) {
      const record = handle.svc.get(id, { includeDeleted });
      if (record) return { handle, record };
    }
    return undefined;
  }

  private mustLocate(id: string, includeDeleted = false): { handle: Handle; record: MemoryRecord } {
    const found = this.locate(id, includeDeleted);
    if (!found) throw new EngineError('not_found', `No memory with id ${id}.`);
    return found;
  }

  /** Scope change = a move between stores: create in the target first, then delete, so nothing is lost. */
  private move(from: Handle, rec: MemoryRecord, to: StoreName, patch: Parameters<MemoryService['update']>[1]): MemoryRecord {
    if (patch.expectedVersion !== undefined && patch.expectedVersion !== rec.version) {
      throw new EngineError('version_conflict', `Memory ${rec.id} changed meanwhile (expected version ${patch.expectedVersion}, found ${rec.version}). Reload and try again.`);
    }
    const target = this.handleForScope(to);
    const input: CreateMemoryInput = {
      content: patch.content ?? rec.content, title: patch.title ?? rec.title, type: patch.type ?? rec.type, scope: to,
      tags: patch.tags ?? rec.tags, importance: patch.importance ?? rec.importance, decisions: patch.decisions ?? rec.decisions,
      rationale: patch.rationale ?? rec.rationale, metadata: { ...(patch.metadata ?? rec.metadata), movedFrom: rec.id },
      allowNearDuplicate: true, fromRecall: true, who: patch.who ?? 'user', why: patch.why ?? `moved from the ${from.name} store`,
      ...(rec.summary ? { summary: rec.summary } : {}), ...(rec.source ? { source: rec.source } : {}),
    };
    const created = this.write(target, () => target.svc.create(input));
    if (created.status === 'skipped') throw new EngineError('invalid_input', `Cannot move memory ${rec.id}: ${created.detail}`);
    this.write(from, () => from.svc.delete(rec.id, { reason: `moved to the ${to} store as ${created.memory.id}` }));
    this.changed('deleted', [rec.id], from.name);
    this.changed('created', [created.memory.id], to);
    return created.memory;
  }

  private storeInfo(h: Handle): StoreInfo {
    const st = h.store.stats();
    const byType = countByType(h.store);
    const memories = Object.values(byType).reduce((a, b) => a + b, 0);
    const one = (sql: string) => Number(h.store.get<{ n: number }>(sql)!.n);
    return {
      dir: h.store.dir, readOnly: h.store.isReadOnly, projectId: h.svc.projectId, memories, byType,
      deleted: one('SELECT count(*) AS n FROM memories WHERE deleted_at IS NOT NULL'),
      pendingEmbeddings: one(`SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL AND embedding_status = 'pending'`),
      seq: st.seq, snapshotSeq: st.snapshotSeq, logBytes: st.logBytes, snapshotBytes: st.snapshotBytes,
      schemaVersion: st.schemaVersion, openMs: st.openMs,
    };
  }

  private changed(kind: Parameters<typeof changeEvent>[0], ids: string[], store: StoreName | 'both'): void {
    this.emit(changeEvent(kind, ids, store));
  }

  private warn(message: string): void {
    this.warnings.push(message);
    if (this.warnings.length > 100) this.warnings.shift();
    this.emit({ type: 'warning', message });
  }

  private emit(event: EngineEvent): void {
    try {
      this.opts.onEvent?.(event);
    } catch {
      // A listener's failure must not fail the write that triggered it.
    }
  }
}

function changeEvent(kind: Extract<EngineEvent, { type: 'memory.changed' }>['kind'], ids: string[], store: StoreName | 'both'): EngineEvent {
  return { type: 'memory.changed', kind, ids, store };
}

function serviceOptions(projectId: string, config: ResolvedConfig, now?: () => Date) {
  return {
    projectId,
    lifecycle: lifecycleFrom(config),
    enqueueExtraction: pipelineMode(config) !== 'off',
    ...(now ? { now } : {}),
  };
}

/** Opens a store writable; if another process holds it, read-only with a warning. */
async function openStore(dir: string, opts: EngineOptions, warnings: string[]): Promise<Store> {
  const purpose = `${opts.purpose ?? 'Agent Memory engine'}${opts.ownerId ? ` [${opts.ownerId}]` : ''}`;
  if (opts.ownerId && reclaimOwnLock(dir, purpose)) warnings.push(`reclaimed the lock of ${dir} left by a crashed engine thread of this window`);
  const base = {
    dir,
    purpose,
    ...(opts.sqlWasmPath ? { sqlWasmPath: opts.sqlWasmPath } : {}),
    ...(opts.migrationsDir ? { migrationsDir: opts.migrationsDir } : {}),
  };
  if (opts.restricted) {
    // Untrusted workspace: read-only when the store exists and is current; otherwise open it
    // writable (creating it) and let the engine refuse every write.
    try {
      return await Store.open({ ...base, readOnly: true });
    } catch {
      warnings.push(`${dir}: not openable read-only (new or needs a migration); opened writable, but restricted mode refuses writes`);
    }
  }
  try {
    return await Store.open(base);
  } catch (e) {
    if (!(e instanceof UserFacingError) || e.code !== 'store_locked' || opts.exclusive) throw e;
    warnings.push(`${e.message} Opened read-only: memories can be read and searched here, changed only in the owning window.`);
    return Store.open({ ...base, readOnly: true });
  }
}


/** Removes a lock left in `dir` by an earlier engine thread of the same owner in this process. */
function reclaimOwnLock(dir: string, purpose: string): boolean {
  const file = path.join(dir, 'store.lock');
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number; host?: string; purpose?: string };
    if (owner.pid !== process.pid || owner.host !== os.hostname() || owner.purpose !== purpose) return false;
    fs.unlinkSync(file);
    return true;
  } catch {
    return false; // no lock, or not readable: Store.open decides
  }
}

function legScores(r: SearchResult): SearchHit['legs'] {
  const legs: SearchHit['legs'] = {};
  if (r.matchType !== 'vector') legs.keyword = r.textScore;
  if (r.matchType !== 'keyword') legs.vector = r.vectorScore;
  if (r.graphBoost > 0) legs.graph = r.graphBoost;
  if (r.dateBoost > 0) legs.date = r.dateBoost;
  return legs;
}

/** Store snapshot, then the vector index with its watermark (WritePath.snapshot). */
async function snapshotHandle(h: Handle): Promise<void> {
  await (h.retrieval ? h.retrieval.snapshot() : h.store.snapshot());
}

/** Stops the backfill, saves and closes the index, then snapshots and closes the store. */
async function closeHandle(h: Handle): Promise<void> {
  try {
    await h.retrieval?.close();
  } finally {
    await h.store.close();
  }
}

/**
 * Chooses the embedder (agent.yaml/settings `embedding.*`) and opens each store's vector index.
 * Any failure leaves that store on keyword-only search with a warning: the engine still starts.
 */
async function openVectorSide(
  handles: readonly Handle[], config: ResolvedConfig, warn: (message: string) => void, now?: () => Date, graphBoost?: GraphBoostProvider,
): Promise<{ embedder?: Embedder; info?: EmbedderInfo }> {
  let embedder: Embedder;
  let info: EmbedderInfo;
  try {
    const sel = await chooseEmbedder(config);
    embedder = sel.embedder;
    info = { provider: sel.provider, space: sel.embedder.space, reason: sel.reason, degraded: sel.degraded };
    if (sel.degraded) warn(`embedder: ${sel.reason}`);
  } catch (e) {
    warn(`no embedder (${errorMessage(e)}): search is keyword-only`);
    return {};
  }
  for (const h of handles) {
    try {
      h.retrieval = await openRetrieval(h.store, h.svc, embedder, config, (m) => warn(`${h.name} vectors: ${m}`), now,
        h.name === 'project' ? graphBoost : undefined);
      // Another model embedded these (e.g. auto picked Ollama last time): embed them again in this space.
      const queued = h.store.isReadOnly ? 0 : queueMissingVectors(h.store, embedder.space);
      if (queued) {
        warn(`${h.name} store: ${queued} memories have no vector from ${embedder.space} yet; they are embedded in the background (keyword search finds them meanwhile)`);
        h.retrieval.kickBackfill();
      }
    } catch (e) {
      warn(`${h.name} store: the vector index could not open (${errorMessage(e)}): search is keyword-only`);
    }
  }
  return { embedder, info };
}

/** Marks live memories without a vector in `space` as pending for the backfill; how many. */
function queueMissingVectors(store: Store, space: string): number {
  return store.transaction((tx) => {
    tx.run(
      `UPDATE memories SET embedding_status = 'pending'
        WHERE deleted_at IS NULL AND embedding_status <> 'pending'
          AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.space = ? AND e.text_hash = memories.embedding_hash)`,
      [space],
    );
    return tx.changes();
  });
}

/** Live memories per type. */
function countByType(store: Store): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of store.all('SELECT type, count(*) AS n FROM memories WHERE deleted_at IS NULL GROUP BY type')) out[String(r.type)] = Number(r.n);
  return out;
}
