/**
 * Background embedding of memories whose vector is missing (embedding_status 'pending'):
 * writes whose embedding failed (provider down, timeout: soft degradation) and
 * writes made without a vector (the pipeline's createInTx/updateInTx). Retries with
 * exponential backoff while the embedder fails; polls slowly when idle; kick() after a
 * pending write makes it due at once. A background task (src/core/util/backgroundTask.ts): the
 * host's scheduler owns the timer.
 */
import type { Store } from '../store/store';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import { embedTextHash } from '../embed/cache';
import { unusableVectorReason } from '../embed/vector';
import { errorMessage } from '../util/errors';
import type { ActiveSpace } from '../vectorstore/activeSpace';
import type { PreparedEmbedding } from '../vectorstore/types';
import { embeddingText, storedEmbedding } from './embedding';
import type { MemoryService } from './memoryService';

export interface BackfillOptions {
  /** Memories embedded per step (one embed call, one transaction). Default 32. */
  batchSize?: number;
  /** First retry delay after a failure; doubles up to maxDelayMs. Defaults 1 s and 5 min. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Poll interval when nothing is pending (pipeline writes without vectors). Default 30 s. */
  idleMs?: number;
  onWarning?: (message: string) => void;
}

export interface BackfillStep {
  embedded: number;
  /** Changed or deleted meanwhile: left for the next step. */
  skipped: number;
  remaining: number;
  error?: string;
}

export class EmbeddingBackfill implements BackgroundTask {
  readonly name = 'embedding backfill';
  private readonly batch: number;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private readonly idle: number;
  private delay = 0;
  private readonly wake = new WakeSignal();
  /** When the next step is due (wall clock ms). */
  private nextStepAt: number | undefined;
  private running: Promise<BackfillStep> | undefined;
  private stopped = true;
  lastError: string | undefined;

  constructor(
    private readonly store: Store,
    private readonly memory: MemoryService,
    private readonly space: ActiveSpace,
    private readonly opts: BackfillOptions = {},
  ) {
    this.batch = Math.max(1, opts.batchSize ?? 32);
    this.minDelay = opts.minDelayMs ?? 1000;
    this.maxDelay = opts.maxDelayMs ?? 300_000;
    this.idle = opts.idleMs ?? 30_000;
  }

  pendingCount(): number {
    return Number(
      this.store.get<{ n: number }>("SELECT count(*) AS n FROM memories WHERE embedding_status = 'pending' AND deleted_at IS NULL")!.n,
    );
  }

  /** One step: embed up to `limit` pending memories and commit them in one transaction. */
  async runOnce(limit = this.batch): Promise<BackfillStep> {
    const rows = this.store.all<{ id: string; title: string; content: string }>(
      "SELECT id, title, content FROM memories WHERE embedding_status = 'pending' AND deleted_at IS NULL ORDER BY rid LIMIT ?",
      [limit],
    );
    if (!rows.length) return { embedded: 0, skipped: 0, remaining: 0 };
    const { embedder } = this.space.current;
    const items = rows.map((r) => {
      const text = embeddingText(String(r.title ?? ''), String(r.content));
      const textHash = embedTextHash(text);
      return { id: String(r.id), text, textHash, vector: storedEmbedding(this.store, embedder.space, textHash) };
    });
    const misses = items.filter((i) => !i.vector || i.vector.length !== embedder.dimension);
    try {
      if (misses.length) {
        const vs = await embedder.embed(
          misses.map((m) => m.text),
          'document',
        );
        if (vs.length !== misses.length) throw new Error(`${embedder.id} returned ${vs.length} vectors for ${misses.length} texts`);
        vs.forEach((v, i) => {
          if (v.length !== embedder.dimension)
            throw new Error(`${embedder.id} returned ${v.length} dimensions, expected ${embedder.dimension}`);
          const unusable = unusableVectorReason(v);
          if (unusable) throw new Error(`${embedder.id} returned an unusable vector: it ${unusable}`);
          misses[i]!.vector = v;
        });
      }
    } catch (e) {
      const error = errorMessage(e);
      this.lastError = error;
      return { embedded: 0, skipped: 0, remaining: this.pendingCount(), error };
    }
    // The embedder was switched meanwhile: these vectors belong to the replaced space.
    if (this.space.current.embedder !== embedder) return { embedded: 0, skipped: items.length, remaining: this.pendingCount() };
    let embedded = 0;
    this.store.transaction((tx) => {
      for (const it of items) {
        const e: PreparedEmbedding = { space: embedder.space, textHash: it.textHash, vector: it.vector! };
        try {
          if (this.memory.setEmbeddingInTx(tx, it.id, e)) embedded++;
        } catch (err) {
          // A bad vector for one text must not block the others.
          this.opts.onWarning?.(`memory ${it.id} not embedded: ${errorMessage(err)}`);
        }
      }
    });
    this.lastError = undefined;
    return { embedded, skipped: items.length - embedded, remaining: this.pendingCount() };
  }

  /** Due at once, then as the steps say, until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.dueNow();
  }

  /** A write left a memory pending: due at once (unless backing off after a failure). */
  kick(): void {
    if (this.stopped || this.running || this.delay > 0) return;
    this.dueNow();
  }

  /** Current retry delay (0 when the embedder is healthy). */
  get backoffMs(): number {
    return this.delay;
  }

  dueInMs(): number | undefined {
    return this.stopped ? undefined : msUntil(this.nextStepAt);
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nextStepAt = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One step: embed a batch; the next is due at once while work flows, after the backoff when the embedder failed, else when idle. */
  async runStep(): Promise<void> {
    if (this.stopped || this.running) return;
    let step: BackfillStep;
    try {
      this.running = this.runOnce();
      step = await this.running;
    } catch (e) {
      step = { embedded: 0, skipped: 0, remaining: 1, error: errorMessage(e) };
    } finally {
      this.running = undefined;
    }
    if (step.error) {
      this.delay = Math.min(this.maxDelay, this.delay ? this.delay * 2 : this.minDelay);
      this.opts.onWarning?.(`background embedding failed (retry in ${Math.round(this.delay / 1000)} s): ${step.error}`);
      this.nextStepAt = dueAt(this.delay);
      return;
    }
    this.delay = 0;
    this.nextStepAt = dueAt(step.remaining > 0 && step.embedded > 0 ? 0 : this.idle);
  }

  private dueNow(): void {
    this.nextStepAt = dueAt(0);
    this.wake.fire();
  }
}
