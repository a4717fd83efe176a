/**
 * The schedule runner of a store's owner (docs/schedules.md "Runs"): a background task the
 * engine's scheduler drives (src/core/util/backgroundTask.ts; it sets no timer of its own). Its
 * first step closes the runs an earlier owner left under way (interrupted); each step then
 * claims what is due (runs.ts: one transaction per claim), runs it outside any transaction
 * (digest.ts) and records the outcome with the next due time. Its due time is the soonest
 * next_run_at, looked at again at least every minute, so runs missed while the machine slept
 * (or the clock jumped) happen once, late, soon after it wakes.
 */
import { WakeSignal, type BackgroundTask } from '../util/backgroundTask';
import { errorMessage } from '../util/errors';
import { claimDue, claimManual, finishRun, recoverInterrupted, type FinishOptions } from './runs';
import type { RunOutcome, ScheduleStore } from './scheduleStore';
import type { RunResult } from './digest';
import type { ScheduleDefinition, ScheduleRunRecord } from './types';

/** How long a claimed run may take before another owner may call it interrupted. */
export const DEFAULT_LEASE_MS = 10 * 60_000;
/** The runner looks at the due times at least this often (clock jumps, a sleeping machine). */
export const MAX_SLEEP_MS = 60_000;
/** Due schedules claimed per step. */
const BATCH = 10;

export interface FinishedRun {
  schedule: ScheduleDefinition;
  run: ScheduleRunRecord;
}

export interface RunnerOptions {
  schedules: ScheduleStore;
  /**
   * Who runs, as the lease records it: the owner process's purpose ("VS Code window (pid 123)")
   * and a suffix of the engine (` #1a2b3c4d`), the same for every runner of that engine so a
   * restarted runner never takes its own engine's run under way for an interrupted one.
   */
  owner: string;
  /** What a run does (digest.ts executeRun with the store's recall and LLM). */
  execute(schedule: ScheduleDefinition, run: ScheduleRunRecord, signal: AbortSignal): Promise<RunResult>;
  now?: () => Date;
  leaseMs?: number;
  maxConsecutiveFailures?: number;
  /** Every finished run (the engine turns it into an event: notices go out from there). */
  onRun?(finished: FinishedRun): void;
  onWarning?(message: string): void;
}

export class ScheduleRunner implements BackgroundTask {
  readonly name = 'schedules';
  readonly owner: string;
  private readonly wake = new WakeSignal();
  private readonly abort = new AbortController();
  private recovered = false;
  private stopped = false;
  private readonly now: () => Date;

  constructor(private readonly opts: RunnerOptions) {
    this.owner = opts.owner;
    this.now = opts.now ?? (() => new Date());
  }

  dueInMs(): number | undefined {
    if (this.stopped) return undefined;
    if (!this.recovered) return 0;
    const next = this.opts.schedules.nextDueAt();
    if (next === undefined) return undefined; // nothing active: a create or resume wakes the runner
    return Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(next) - this.now().getTime()));
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  /** A schedule was created, edited or resumed: look at the due times again. */
  kick(): void {
    this.wake.fire();
  }

  async runStep(): Promise<void> {
    if (this.stopped) return;
    if (!this.recovered) {
      for (const f of recoverInterrupted(this.opts.schedules, this.owner, this.finishOptions())) this.report(f);
      this.recovered = true;
    }
    for (const s of this.opts.schedules.due(this.now(), BATCH)) {
      if (this.stopped) return;
      const run = claimDue(this.opts.schedules, s.id, this.claimOptions());
      if (run) await this.execute(run);
    }
  }

  /** Runs the schedule now, whatever its cadence says ("run now"); resolves with the finished run. */
  async runNow(scheduleId: string): Promise<FinishedRun | undefined> {
    const run = claimManual(this.opts.schedules, scheduleId, this.claimOptions());
    return this.execute(run);
  }

  /** Stops between runs and cancels a model call under way (its run is recorded as failed). */
  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async execute(run: ScheduleRunRecord): Promise<FinishedRun | undefined> {
    const schedule = this.opts.schedules.find(run.scheduleId);
    if (!schedule) return undefined;
    let result: Omit<RunResult, 'status' | 'memoryIds' | 'turnCount' | 'cost'> &
      Partial<Omit<RunResult, 'status'>> & { status: RunOutcome['status'] };
    try {
      result = await this.opts.execute(schedule, run, this.abort.signal);
    } catch (e) {
      result = this.abort.signal.aborted
        ? { status: 'interrupted', output: '', error: 'The process running it shut down during the run; it runs again as a retry.' }
        : { status: 'failed', output: '', error: errorMessage(e) };
    }
    const finished = finishRun(
      this.opts.schedules,
      run,
      {
        status: result.status,
        finishedAt: this.now().toISOString(),
        output: result.output || null,
        error: result.error ?? null,
        memoryIds: result.memoryIds ?? [],
        turnCount: result.turnCount ?? 0,
        cost: result.cost ?? 0,
      },
      this.finishOptions(),
    );
    return this.report(finished);
  }

  private report(f: { schedule: ScheduleDefinition | undefined; run: ScheduleRunRecord | undefined }): FinishedRun | undefined {
    if (!f.schedule || !f.run) return undefined;
    const done = { schedule: f.schedule, run: f.run };
    try {
      this.opts.onRun?.(done);
    } catch (e) {
      this.opts.onWarning?.(`schedules: reporting a run failed: ${errorMessage(e)}`);
    }
    return done;
  }

  private claimOptions() {
    return { owner: this.owner, leaseMs: this.opts.leaseMs ?? DEFAULT_LEASE_MS, now: this.now() };
  }

  private finishOptions(): FinishOptions {
    return { now: this.now(), ...(this.opts.maxConsecutiveFailures ? { maxConsecutiveFailures: this.opts.maxConsecutiveFailures } : {}) };
  }
}
