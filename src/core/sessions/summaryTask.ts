/**
 * Rolling summaries in the background (docs/sessions.md "Rolling summary"): after events are
 * logged, the session is queued; one step checks one queued session and summarises it when due —
 * with the pipeline's model when the host offers one that answers, else condensed turns. A
 * background task (src/core/util/backgroundTask.ts): the host's scheduler owns the timer, and a
 * step never holds a transaction across the model call (rollSummary's compare-and-swap).
 */
import type { LlmProvider } from '../llm/types';
import { errorMessage } from '../util/errors';
import { WakeSignal, type BackgroundTask } from '../util/backgroundTask';
import type { SessionStore } from './sessionStore';
import type { RollOutcome, SummarySettings } from './summary';

export interface SummaryTaskOptions {
  /** The model to summarise with now, if any (the pipeline's, when it is on). */
  llm?: () => LlmProvider | undefined;
  settings?: Partial<SummarySettings>;
  onOutcome?: (sessionId: string, outcome: RollOutcome) => void;
  onWarning?: (message: string) => void;
}

export class SummaryTask implements BackgroundTask {
  readonly name = 'session summaries';
  private readonly queued = new Set<string>();
  private readonly wake = new WakeSignal();
  private stopped = true;

  constructor(
    private readonly sessions: SessionStore,
    private readonly opts: SummaryTaskOptions = {},
  ) {}

  start(): void {
    this.stopped = false;
    if (this.queued.size) this.wake.fire();
  }

  stop(): void {
    this.stopped = true;
  }

  /** Events were logged to `sessionId`: check it soon. */
  queue(sessionId: string): void {
    this.queued.add(sessionId);
    if (!this.stopped) this.wake.fire();
  }

  dueInMs(): number | undefined {
    return !this.stopped && this.queued.size ? 0 : undefined;
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  async runStep(): Promise<void> {
    const sessionId = this.queued.values().next().value;
    if (this.stopped || sessionId === undefined) return;
    this.queued.delete(sessionId);
    try {
      const outcome = await this.summarise(sessionId);
      if (outcome.status !== 'not_needed') this.opts.onOutcome?.(sessionId, outcome);
      if (outcome.status !== 'not_needed' && outcome.warning) this.opts.onWarning?.(`session ${sessionId}: ${outcome.warning}`);
    } catch (e) {
      // A session forgotten meanwhile has nothing left to summarise.
      if ((e as { code?: string }).code !== 'not_found')
        this.opts.onWarning?.(`session ${sessionId}: the summary failed: ${errorMessage(e)}`);
    }
  }

  /** Summarises now if due (the model only when it answers its availability check). */
  async summarise(sessionId: string): Promise<RollOutcome> {
    const llm = this.opts.llm?.();
    const usable = llm && (await llm.available().catch(() => false)) ? llm : undefined;
    return this.sessions.rollSummary(sessionId, {
      ...(this.opts.settings ? { settings: this.opts.settings } : {}),
      ...(usable ? { llm: usable } : {}),
    });
  }
}
