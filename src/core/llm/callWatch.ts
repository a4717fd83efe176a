/**
 * Watches the calls made to the model so the pipeline can say "waiting for the model" instead
 * of "running" while they stall: a call that has run longer than `stallNoticeMs`, or a streak
 * of calls that ended by their time limit (until one succeeds). Provider independent: it wraps
 * any {@link LlmProvider}.
 */
import { LlmError, type GenerateOptions, type LlmProvider } from './types';

/**
 * How long a call may run before the status says the pipeline waits for the model. A local
 * model answers an extraction prompt in seconds once loaded; a first call may load it.
 */
export const STALL_NOTICE_MS = 15_000;

export interface ModelWaitState {
  /** A call runs longer than the notice time, or the last call(s) hit their time limit. */
  waitingForModel: boolean;
  /** Since when (ISO): the start of the oldest long call, or the first timeout of the streak. */
  waitingSince?: string;
}

export class ModelCallWatch {
  private readonly inFlight = new Map<number, number>();
  private nextId = 0;
  private timeoutStreakSince: number | undefined;

  constructor(private readonly opts: { stallNoticeMs?: number; now?: () => number } = {}) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** Records a call; the returned function records its end (`timedOut` when it hit its limit). */
  begin(): (outcome: 'ok' | 'timeout' | 'failed') => void {
    const id = this.nextId++;
    const started = this.now();
    this.inFlight.set(id, started);
    return (outcome) => {
      if (!this.inFlight.delete(id)) return;
      if (outcome === 'ok') this.timeoutStreakSince = undefined;
      else if (outcome === 'timeout') this.timeoutStreakSince ??= started;
    };
  }

  state(): ModelWaitState {
    const now = this.now();
    const notice = this.opts.stallNoticeMs ?? STALL_NOTICE_MS;
    let oldest: number | undefined;
    for (const t of this.inFlight.values()) if (oldest === undefined || t < oldest) oldest = t;
    const longCall = oldest !== undefined && now - oldest >= notice ? oldest : undefined;
    const since = [longCall, this.timeoutStreakSince].filter((t): t is number => t !== undefined);
    if (!since.length) return { waitingForModel: false };
    return { waitingForModel: true, waitingSince: new Date(Math.min(...since)).toISOString() };
  }
}

/** `llm` with every generate recorded in `watch` (other members pass through). */
export function watchModelCalls<T extends LlmProvider>(llm: T, watch: ModelCallWatch): T {
  const generate = async (prompt: string, opts?: GenerateOptions): Promise<string> => {
    const end = watch.begin();
    try {
      const out = await llm.generate(prompt, opts);
      end('ok');
      return out;
    } catch (e) {
      end(e instanceof LlmError && e.code === 'timeout' ? 'timeout' : 'failed');
      throw e;
    }
  };
  return new Proxy(llm, {
    get(target, key) {
      if (key === 'generate') return generate;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
