/**
 * MemoryEngine: the composition root of the engine thread. It resolves the workspace's project
 * id (src/core/project), opens the project's store and the global store (stores.ts), layers the
 * host's settings over agent.yaml (config.ts), builds one runtime per store
 * (runtime/storeRuntime.ts) and the services that answer the protocol (services/*), and
 * rebuilds the runtimes when the configuration is reloaded. It knows nothing of threads or
 * VS Code: the worker (worker.ts) hosts it in a thread, the tests also host it directly.
 */
import type { ProjectIdResult } from '../../core/project';
import { pipelineMode, type ResolvedConfig } from '../../core/config';
import { UserFacingError, errorMessage } from '../../core/util/errors';
import { loadEngineConfig } from './config';
import { EngineContext } from './context';
import { EngineError } from '../errors';
import * as pc from './services/pipelineControl';
import { liveOllama } from '../../core/llm/liveOllama';
import type { ConfigSummary, EngineEvent, EngineInit, PipelineModeName, PipelineStatus, RunningConfig } from '../protocol';
import { StoreRuntime } from './runtime/storeRuntime';
import {
  chooseEmbedder,
  chooseEmbedderInThread,
  embeddingKey,
  selectActive,
  switchAll,
  type ActiveEmbedder,
  type ChooseEmbedder,
  type EmbedderInfo,
} from './runtime/embedders';
import { projectIdFor } from './projectId';
import { Scheduler } from './scheduler';
import { DiagnosticsService } from './services/diagnostics';
import { EncryptionService } from './services/encryption';
import { GraphViewService } from './services/graphView';
import { MaintenanceService } from './services/maintenance';
import { MemoriesService } from './services/memories';
import { VersionsService } from './services/versions';
import { PipelinesService } from './services/pipelines';
import { SearchService } from './services/search';
import { SchedulesService } from './services/schedules';
import { SessionsService } from './services/sessions';
import { SuggestionsService } from './services/suggestions';
import { TransferService } from './services/transfer';
import { ChangesService } from './services/changes';
import { WebhooksService } from './services/webhooks';
import { webhookSecretStore } from '../../core/webhooks/secrets';
import { webhookSecretsFile } from '../storeLocation';
import { FileSecretStore } from '../../core/webhooks/secrets';
import { teamSecretsFile } from '../storeLocation';
import { TeamService } from './services/team';
import { TeamPasswords } from '../../core/team/connection';
import { GLOBAL_PROJECT_ID, Stores } from './stores';
import type { StoreFs } from '../../core/store/storeFs';
import { plural } from '../../core/text/plural';
import { SharedExclusiveGate } from '../../core/util/sharedExclusiveGate';

export { GLOBAL_PROJECT_ID, storeFolderName } from './stores';
export type { CallContext } from './services/transfer';
export type { EmbedderInfo } from './runtime/embedders';

export interface EngineOptions extends EngineInit {
  now?: () => Date;
  onEvent?: (event: EngineEvent) => void;
  /** How often the snapshot policy is checked (ms). Default 5 s; 0 = never. */
  snapshotTickMs?: number;
  /** How the embedder of a configuration is chosen (tests inject deterministic ones). */
  chooseEmbedder?: ChooseEmbedder;
  /** The file operations the stores' durable writes go through (tests inject disk faults: test/fixtures/faultFs.ts). */
  storeFs?: StoreFs;
  /**
   * Resolves when a request that embeds text is waiting for this engine to open (a PrepareMessage
   * reached the worker): the embedder is then loaded while the stores open, not after.
   */
  embedderWanted?: Promise<void>;
}

export class MemoryEngine {
  readonly memories: MemoriesService;
  readonly versions: VersionsService;
  readonly search: SearchService;
  readonly suggestions: SuggestionsService;
  readonly graph: GraphViewService;
  readonly transfer: TransferService;
  readonly pipelines: PipelinesService;
  readonly maintenance: MaintenanceService;
  readonly diagnostics: DiagnosticsService;
  readonly changes: ChangesService;
  readonly webhooks: WebhooksService;
  readonly schedules: SchedulesService;
  readonly sessions: SessionsService;
  readonly encryption: EncryptionService;
  readonly team: TeamService;
  private readonly scheduler: Scheduler;
  /** Bumped by every runtime rebuild: a background embedder switch of an older generation stops. */
  private generation = 0;
  private switching: Promise<void> | undefined;
  /** The rebuild over a first embedder (switchEmbedder), once the requests under way are done. */
  private rebuilding: Promise<void> | undefined;
  /** Requests run in its shared sections, runtime rebuilds in its exclusive ones: no request meets a closed runtime. */
  private readonly runtimeGate = new SharedExclusiveGate();

  private constructor(
    private readonly opts: EngineOptions,
    private readonly ctx: EngineContext,
    private active: ActiveEmbedder | undefined,
    private readonly openMs: number,
  ) {
    this.memories = new MemoriesService(ctx);
    this.versions = new VersionsService(ctx, this.memories);
    const llm = liveOllama(() => ctx.config.memory.pipelineV2);
    this.search = new SearchService(ctx, () => llm);
    this.sessions = new SessionsService(ctx, this.search);
    this.suggestions = new SuggestionsService(ctx);
    this.graph = new GraphViewService(ctx);
    this.transfer = new TransferService(ctx);
    this.pipelines = new PipelinesService(ctx, () => this.embedderInfo);
    this.maintenance = new MaintenanceService(ctx);
    this.changes = new ChangesService(ctx);
    this.webhooks = new WebhooksService(ctx, webhookSecretStore(ctx.stores.keys, webhookSecretsFile(opts, ctx.stores.project.dir)));
    this.encryption = new EncryptionService(ctx);
    this.team = new TeamService(ctx, new TeamPasswords(new FileSecretStore(teamSecretsFile(opts, ctx.stores.project.dir))), () =>
      this.reloadConfig(),
    );
    this.diagnostics = new DiagnosticsService(ctx, {
      pipelines: this.pipelines,
      suggestions: this.suggestions,
      embedderInfo: () => this.embedderInfo,
      openMs,
    });
    this.schedules = new SchedulesService(ctx, this.search, () => llm);
    this.scheduler = new Scheduler(ctx, {
      maintenance: this.maintenance,
      suggestions: this.suggestions,
      schedules: this.schedules,
      snapshotTickMs: opts.snapshotTickMs ?? 5000,
    });
  }

  static async open(opts: EngineOptions): Promise<MemoryEngine> {
    const t0 = performance.now();
    const cfg = await loadEngineConfig(opts.workspaceRoot, opts.settings);
    const project = await projectIdFor(opts.workspaceRoot, cfg.config);
    const warnings: string[] = [...(project.warnings ?? [])];
    // The embedder is chosen (an Ollama probe is a network round trip) while the stores open; what
    // it says before the engine's context exists is said once the context does, in the same order.
    const early = { warnings: [] as string[], logs: [] as string[], ctx: undefined as EngineContext | undefined };
    const log = (m: string) => (early.ctx ? early.ctx.log(m) : early.logs.push(m));
    const choosing = selectActive(embedderChooser(opts), cfg.config, (m) => (early.ctx ? early.ctx.warn(m) : early.warnings.push(m)), log);
    void choosing.then((active) =>
      opts.embedderWanted?.then(() => {
        if (!active) return;
        log(`loading the embedder (${active.info.provider}) while the store opens: a request that needs it is waiting`);
        return active.embedder.available();
      }),
    );
    let stores: Stores;
    try {
      stores = await Stores.open(opts, project.id, warnings);
    } catch (e) {
      void choosing.then((active) => active?.embedder.dispose());
      throw e;
    }
    warnings.push(...stores.project.warnings, ...stores.global.warnings);
    const ctx = new EngineContext(opts, project, stores, cfg, opts.now ?? (() => new Date()));
    for (const w of warnings) ctx.warn(w);
    // Disk full, I/O errors and recovery reach every window (status bar) as they happen.
    for (const name of ['project', 'global'] as const)
      stores.store(name).onHealthChange((health) => ctx.emit({ type: 'store.health', store: name, health }));
    const active = await choosing;
    early.ctx = ctx;
    for (const w of early.warnings) ctx.warn(w);
    for (const l of early.logs) ctx.log(l);
    const engine = new MemoryEngine(opts, ctx, active, performance.now() - t0);
    engine.changes.watch();
    await engine.buildRuntimes();
    engine.queueMissingVectors();
    engine.reportConfigIssues();
    await engine.pipelines.start();
    return engine;
  }

  get projectId(): string {
    return this.ctx.project.id;
  }

  get project(): ProjectIdResult {
    return this.ctx.project;
  }

  /** The explicit settings, folder and pipeline mode this engine runs with (ReadyInfo.config). */
  runningConfig(): RunningConfig {
    return {
      settings: { ...this.opts.settings },
      ...(this.opts.workspaceRoot ? { workspaceRoot: this.opts.workspaceRoot } : {}),
      mode: pipelineMode(this.ctx.config),
      ...(this.opts.purpose ? { owner: this.opts.purpose } : {}),
    };
  }

  get config(): ResolvedConfig {
    return this.ctx.config;
  }

  get startupWarnings(): string[] {
    return this.ctx.warnings;
  }

  get openDurationMs(): number {
    return this.openMs;
  }

  get embedderInfo(): EmbedderInfo | undefined {
    return this.active?.info;
  }

  /**
   * Reads the configuration again and rebuilds both runtimes over the same stores. A change of
   * `embedding.*` re-embeds in the background (progress events); search keeps the old space
   * until a store's new space is complete.
   */
  reloadConfig(settings?: Record<string, unknown>): Promise<ConfigSummary> {
    return this.runtimeGate.exclusive(async () => {
      if (settings) this.opts.settings = settings;
      this.ctx.engineConfig = await loadEngineConfig(this.opts.workspaceRoot, this.opts.settings);
      await this.closeRuntimes();
      await this.switching; // a switch of the closed runtimes stops; a changed embedding.* starts it again below
      await this.buildRuntimes(); // restarts the scheduler: new intervals
      await this.pipelines.start(); // a reload does not undo pipeline.pause
      this.reportConfigIssues();
      if (embeddingKey(this.ctx.config) !== this.active?.key) this.switching = this.switchEmbedder(this.generation);
      this.pipelines.stateChanged();
      return this.ctx.engineConfig.summary;
    });
  }

  /**
   * Runs one request (handlers.ts): never while the runtimes are being rebuilt, and a rebuild waits
   * for the requests under way — a write racing an agent.yaml reload is applied, not refused.
   */
  serveRequest<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.runtimeGate.shared(fn);
  }

  /** The mode's flags become settings overrides of this engine (the host persists them in workspace settings). */
  async setPipelineMode(
    mode: PipelineModeName,
  ): Promise<{ mode: PipelineModeName; settings: Record<string, boolean>; status: PipelineStatus }> {
    const settings = pc.modeSettings(mode);
    this.pipelines.checkControl();
    await this.reloadConfig({ ...(this.opts.settings ?? {}), ...settings });
    return { mode, settings, status: this.pipelines.status() };
  }

  /**
   * Takes the global store over from its owner, which went away (server/globalRoute.ts): opens
   * it writable (the log replayed: every acknowledged write is there) in place of the read-only
   * copy and rebuilds the runtimes over it. False while another process holds its lock.
   */
  async takeOverGlobal(): Promise<boolean> {
    if (this.ctx.closed || !this.ctx.stores.global.isReadOnly) return false;
    const warnings: string[] = [];
    const store = await Stores.openGlobalWritable(this.opts, this.ctx.project.id, warnings);
    if (!store) return false;
    // The calls waiting for global/ wait outside the gate (server/globalForwarding.ts): no deadlock.
    await this.runtimeGate.exclusive(async () => {
      await this.closeRuntimes();
      await this.switching;
      await this.ctx.stores.replaceGlobal(store);
      this.changes.watch(['global']);
      store.onHealthChange((health) => this.ctx.emit({ type: 'store.health', store: 'global', health }));
      for (const w of [...warnings, ...store.warnings]) this.ctx.warn(w);
      await this.buildRuntimes();
      this.scheduler.start();
      await this.pipelines.start();
      this.queueMissingVectors();
    });
    return true;
  }

  /** The background embedder switch started by the last reload, if any (tests wait for it). */
  async whenEmbedderSwitched(): Promise<void> {
    await this.switching;
    await this.rebuilding;
  }

  /** Clean shutdown: stop the timers and runtimes, snapshot both stores and release their locks. */
  async close(): Promise<boolean> {
    if (this.ctx.closed) return false;
    this.ctx.markClosed();
    const stepping = this.scheduler.stop(); // no timer is left
    this.changes.stop();
    await this.suggestions.running;
    await this.closeRuntimes();
    await stepping;
    await this.switching;
    const results = await this.ctx.stores.close();
    this.active?.embedder.dispose();
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length)
      throw new EngineError('internal', `Closing the memory stores failed: ${failed.map((f) => errorMessage(f.reason)).join('; ')}`);
    return true;
  }

  private async buildRuntimes(): Promise<void> {
    this.generation++;
    const { ctx } = this;
    const llm = liveOllama(() => ctx.config.memory.pipelineV2);
    const open = (name: 'project' | 'global', projectId: string) =>
      StoreRuntime.open({
        name,
        store: ctx.stores.store(name),
        projectId,
        config: ctx.config,
        llm,
        restricted: ctx.restricted,
        sessions: name === 'project',
        ...(this.active ? { embedder: this.active.embedder } : {}),
        ...(this.opts.now ? { now: this.opts.now } : {}),
        onWarning: (m) => ctx.warn(m),
        ...(name === 'project'
          ? {
              webhooks: {
                secret: (hook: string) => this.webhooks.secretOf(hook),
                onAttempt: (delivery) => ctx.emit({ type: 'webhooks.delivery', delivery }),
              },
              team: this.team.runtimeOptions(() => {
                ctx.changed('updated', [], 'project');
                ctx.stores.runtime('project').kickBackfill();
              }),
            }
          : {}),
        onPipelineEvent: (e) => {
          if (e.type === 'completed') ctx.changed('updated', e.job.memoryId ? [e.job.memoryId] : [], name);
          else if (e.type === 'failed' && e.status === 'dead')
            ctx.warn(`pipeline: job ${e.job.id} (${e.job.jobType}) failed for good: ${e.error}`);
          else if (e.type === 'tick-error') ctx.warn(`pipeline: ${e.error}`);
          if (e.type === 'completed' || e.type === 'failed') this.pipelines.stateChanged();
        },
      });
    ctx.stores.setRuntimes(await open('project', ctx.project.id), await open('global', GLOBAL_PROJECT_ID));
    await this.webhooks.sync({ warn: true }); // before the scheduler asks the sender what is due
    this.scheduler.start();
  }

  /** Stops the scheduler (no new steps), then the runtimes (steps under way are cut short), then waits for those steps. */
  private async closeRuntimes(): Promise<void> {
    this.generation++;
    this.schedules.stop(); // a run under way is cut short (recorded) before the runtimes close
    const stepping = this.scheduler.stop();
    for (const rt of this.ctx.stores.all()) {
      const { promoted } = await rt.close();
      if (promoted.length) this.ctx.changed('promoted', promoted, rt.name);
    }
    await stepping;
  }

  /** Memories another embedder embedded (e.g. auto picked Ollama last time) get a vector in this space, in the background. */
  private queueMissingVectors(): void {
    for (const rt of this.ctx.stores.all()) this.queueMissingVectorsOf(rt);
  }

  private queueMissingVectorsOf(rt: StoreRuntime): void {
    let queued: number;
    try {
      queued = rt.queueMissingVectors();
    } catch (e) {
      // A full or failing disk must not stop the engine from opening (reads work): queue them later.
      if (!(e instanceof UserFacingError) || (e.code !== 'disk_full' && e.code !== 'io_error')) throw e;
      this.queueWhenWritable(rt, e.code);
      return;
    }
    if (!queued) return;
    this.ctx.warn(
      `${rt.name} store: ${plural(queued, 'memory has', 'memories have')} no vector from ${rt.activeEmbedder!.space} yet; ` +
        'they are embedded in the background (keyword search finds them meanwhile)',
    );
  }

  /** The disk refused the missing-vector queue: said once, and queued as soon as the store takes writes again. */
  private queueWhenWritable(rt: StoreRuntime, code: 'disk_full' | 'io_error'): void {
    const name = rt.name;
    this.ctx.warn(
      `${name} store: ${code === 'disk_full' ? 'the disk is full' : 'the disk reported an error'}, so ` +
        `${plural(rt.missingVectors(), 'memory', 'memories')} without a vector from ${rt.activeEmbedder!.space} cannot be queued yet; ` +
        'they are queued by themselves once changes can be saved again (keyword search finds them meanwhile)',
    );
    const off = this.ctx.stores.store(name).onHealthChange((health) => {
      if (health.state !== 'ok') return;
      off();
      // After the store's own recovery step has returned, and with whatever runtime is current then.
      queueMicrotask(() => {
        if (this.ctx.closed) return;
        try {
          this.queueMissingVectorsOf(this.ctx.stores.runtime(name));
        } catch (e) {
          this.ctx.warn(`${name} store: queueing the memories without a vector failed: ${errorMessage(e)}`);
        }
      });
    });
  }

  /** Chooses the new embedder and switches every store to it in the background (see reloadConfig). */
  private async switchEmbedder(generation: number): Promise<void> {
    const next = await selectActive(
      embedderChooser(this.opts),
      this.ctx.config,
      (m) => this.ctx.warn(m),
      (m) => this.ctx.log(m),
    );
    if (!next || generation !== this.generation) {
      next?.embedder.dispose();
      return;
    }
    if (!this.active) {
      // No vectors before: the runtimes are rebuilt over the new embedder and embed everything —
      // once the requests under way are done. Not awaited here: a reload awaits this switch while
      // it holds the gate (reloadConfig); its new generation makes the waiting rebuild give up.
      this.rebuilding = this.runtimeGate
        .exclusive(async () => {
          if (generation !== this.generation || this.ctx.closed) {
            next.embedder.dispose();
            return;
          }
          this.active = next;
          await this.closeRuntimes();
          await this.buildRuntimes();
          await this.pipelines.start();
          this.queueMissingVectors();
        })
        .catch((e: unknown) => this.ctx.warn(`Switching to the new embedder failed: ${errorMessage(e)}`));
      return;
    }
    const current = () => generation === this.generation;
    const ok = await switchAll(this.ctx.stores.all(), next.embedder, {
      report: (e) => this.ctx.emit(e),
      warn: (m) => this.ctx.warn(m),
      current,
    });
    if (!current()) {
      next.embedder.dispose(); // the runtimes that may have used it are closed
      return;
    }
    if (!ok) return; // a store kept the old space (warned); the next reload tries again
    const previous = this.active;
    this.active = next;
    previous.embedder.dispose();
  }

  /**
   * The configuration's issues as warning events, not in the warning list: they belong to the
   * configuration in force (diagnostics' `config.issues`), and each VS Code window checks its own
   * agent.yaml and says each problem once. Kept in the list, every reload added them again and a
   * fixed one stayed, and every client got them all in its ready message.
   */
  private reportConfigIssues(): void {
    for (const i of this.ctx.engineConfig.summary.issues) {
      const key = i.key && !i.message.startsWith(i.key) ? `${i.key}: ` : '';
      this.ctx.emit({ type: 'warning', message: `config: ${key}${i.message}${i.source ? ` (${i.source})` : ''}` });
    }
  }
}

/** How this engine chooses its embedder: the test's chooser, else by where the built-in model runs (EngineInit.modelThread). */
function embedderChooser(opts: EngineOptions): ChooseEmbedder {
  return opts.chooseEmbedder ?? (opts.modelThread === 'engine' ? chooseEmbedderInThread : chooseEmbedder);
}
