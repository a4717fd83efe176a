/**
 * The agent sessions of the project store (docs/sessions.md): the session API over the store,
 * the chunk index of the active embedding space (following an embedder switch), and two
 * background tasks the engine's scheduler drives — embedding chunks left without a vector and
 * rolling summaries (with the pipeline's model when the pipeline is on).
 */
import type { Store } from '../../../core/store/store';
import type { LlmProvider } from '../../../core/llm/types';
import type { ActiveSpace } from '../../../core/vectorstore/activeSpace';
import type { VectorIndexParams } from '../../../core/vectorstore/types';
import { ChunkBackfill, ChunkSpace } from '../../../core/sessions/chunkVectors';
import { SessionStore } from '../../../core/sessions/sessionStore';
import { SummaryTask } from '../../../core/sessions/summaryTask';
import type { RollOutcome } from '../../../core/sessions/summary';
import type { BackgroundTask } from '../../../core/util/backgroundTask';

export interface SessionsRuntimeOptions {
  store: Store;
  space: ActiveSpace | undefined;
  params?: Partial<VectorIndexParams>;
  /** The pipeline's model when the pipeline is on (summaries are condensed turns otherwise). */
  llm: () => LlmProvider | undefined;
  now?: () => Date;
  onWarning(message: string): void;
  onSummary?(sessionId: string, outcome: RollOutcome): void;
}

export class SessionsRuntime {
  private constructor(
    readonly sessions: SessionStore,
    readonly chunks: ChunkSpace,
    readonly backfill: ChunkBackfill,
    readonly summaries: SummaryTask,
  ) {}

  static async open(o: SessionsRuntimeOptions): Promise<SessionsRuntime> {
    const warn = (m: string) => o.onWarning(`sessions: ${m}`);
    const chunks = await ChunkSpace.open(o.store, o.space, { ...(o.params ? { params: o.params } : {}), onWarning: warn });
    const backfill = new ChunkBackfill(o.store, chunks, { onWarning: warn });
    const sessions = new SessionStore({ store: o.store, chunks, ...(o.now ? { now: o.now } : {}), onPending: () => backfill.kick() });
    const summaries = new SummaryTask(sessions, {
      llm: o.llm,
      onWarning: warn,
      ...(o.onSummary ? { onOutcome: (id: string, r: RollOutcome) => o.onSummary?.(id, r) } : {}),
    });
    // After an embedder switch the new space's chunks are embedded in the background.
    chunks.onSwitched(() => backfill.kick());
    if (!o.store.isReadOnly) {
      backfill.start();
      summaries.start();
    }
    return new SessionsRuntime(sessions, chunks, backfill, summaries);
  }

  tasks(): BackgroundTask[] {
    return [this.backfill, this.summaries];
  }

  async close(): Promise<void> {
    this.backfill.stop();
    this.summaries.stop();
    await this.chunks.close();
  }
}
