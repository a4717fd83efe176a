/** Stats of both stores and the engine's diagnostics (what the host prints and shows). */
import type { EngineContext } from '../context';
import { PROTOCOL_VERSION, type EngineDiagnostics, type EngineStats, type StoreInfo } from '../../protocol';
import type { EmbedderInfo } from '../runtime/embedders';
import type { StoreRuntime } from '../runtime/storeRuntime';
import { countByType } from './memories';
import type { PipelinesService } from './pipelines';
import type { SuggestionsService } from './suggestions';

export interface DiagnosticsDeps {
  pipelines: PipelinesService;
  suggestions: SuggestionsService;
  embedderInfo(): EmbedderInfo | undefined;
  openMs: number;
}

export class DiagnosticsService {
  private readonly startedAt = Date.now();

  constructor(
    private readonly ctx: EngineContext,
    private readonly deps: DiagnosticsDeps,
  ) {}

  stats(): EngineStats {
    const stores = this.ctx.stores;
    return {
      project: storeInfo(stores.runtime('project')),
      global: storeInfo(stores.runtime('global')),
      suggestionsPending: this.deps.suggestions.pendingCount(),
    };
  }

  /**
   * Where a store lives and whether this engine only reads it — without counting anything
   * ({@link stats} counts every memory by type: start-up asks this instead).
   */
  location(name: 'project' | 'global'): { dir: string; readOnly: boolean } {
    const store = this.ctx.stores.runtime(name).store;
    return { dir: store.dir, readOnly: store.isReadOnly };
  }

  diagnostics(): EngineDiagnostics {
    const embedder = this.deps.embedderInfo();
    const init = this.ctx.init;
    return {
      protocolVersion: PROTOCOL_VERSION,
      projectId: this.ctx.project.id,
      projectIdKind: this.ctx.project.kind,
      ...(init.workspaceRoot ? { workspaceRoot: init.workspaceRoot } : {}),
      node: process.version,
      uptimeMs: Date.now() - this.startedAt,
      openMs: this.deps.openMs,
      stats: this.stats(),
      pipeline: this.deps.pipelines.status(),
      config: this.ctx.engineConfig.summary,
      warnings: this.ctx.warnings,
      ...(embedder ? { embedder } : {}),
    };
  }
}

function storeInfo(rt: StoreRuntime): StoreInfo {
  const st = rt.store.stats();
  const byType = countByType(rt);
  const memories = Object.values(byType).reduce((a, b) => a + b, 0);
  const one = (sql: string) => Number(rt.store.get<{ n: number }>(sql)!.n);
  return {
    dir: rt.store.dir,
    readOnly: rt.store.isReadOnly,
    projectId: rt.projectId,
    memories,
    byType,
    deleted: one('SELECT count(*) AS n FROM memories WHERE deleted_at IS NOT NULL'),
    pendingEmbeddings: one(`SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL AND embedding_status = 'pending'`),
    seq: st.seq,
    snapshotSeq: st.snapshotSeq,
    logBytes: st.logBytes,
    snapshotBytes: st.snapshotBytes,
    schemaVersion: st.schemaVersion,
    openMs: st.openMs,
    health: rt.store.health(),
  };
}
