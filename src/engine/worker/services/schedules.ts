/**
 * Schedules and reminders of the project store (docs/schedules.md): the store API for the
 * protocol, and the runner the engine's scheduler drives when this engine owns the store (only
 * the owner writes it, so only the owner runs what is due). A run recalls through the engine's
 * search (both stores, one ranking, the relevance floor) and writes its digest with the
 * pipeline's LLM when the pipeline is on and Ollama answers.
 */
import { randomBytes } from 'node:crypto';
import { pipelineMode } from '../../../core/config';
import type { LlmProvider } from '../../../core/llm/types';
import type { BackgroundTask } from '../../../core/util/backgroundTask';
import { nextRunForCadence, validateCadence } from '../../../core/schedules/cadence';
import { describeSchedule } from '../../../core/schedules/describe';
import { executeRun, memoriesChangedSince, type RunMemory } from '../../../core/schedules/digest';
import { claimNotice, pendingNotices, reminders, wantsNotice, type Notice, type Reminders } from '../../../core/schedules/notices';
import { parsePhrase } from '../../../core/schedules/phrases';
import { ScheduleRunner, type FinishedRun } from '../../../core/schedules/runner';
import { ScheduleStore } from '../../../core/schedules/scheduleStore';
import type {
  ScheduleCadence,
  ScheduleDefinition,
  ScheduleRunRecord,
  ScheduleSearchFilters,
  ScheduleSearchResult,
} from '../../../core/schedules/types';
import type { Store } from '../../../core/store/store';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { CreateScheduleParams, ScheduleMethods, SchedulePreview, ScheduleWhen } from '../../scheduleProtocol';
import type { SearchService } from './search';

export class SchedulesService {
  private runner: ScheduleRunner | undefined;
  /** This engine's lease owner: its purpose and a suffix of its own (runs.ts reads it back without the suffix). */
  private readonly owner: string;
  private cached: { store: Store; schedules: ScheduleStore } | undefined;

  constructor(
    private readonly ctx: EngineContext,
    private readonly search: SearchService,
    private readonly llm: () => LlmProvider,
  ) {
    this.owner = `${ctx.init.purpose ?? `Agent Memory engine (pid ${process.pid})`} #${randomBytes(4).toString('hex')}`;
  }

  /** The project store's schedules (a new ScheduleStore when the store object changed). */
  private get schedules(): ScheduleStore {
    const store = this.ctx.stores.project;
    if (this.cached?.store !== store) this.cached = { store, schedules: new ScheduleStore(store, { now: this.ctx.now }) };
    return this.cached.schedules;
  }

  /**
   * The runner for the scheduler to drive (a new one per start: the scheduler restarts with the
   * runtimes); none when this engine cannot write the project store or runs restricted.
   */
  tasks(): BackgroundTask[] {
    this.runner?.stop();
    this.runner = undefined;
    if (this.ctx.closed || this.ctx.restricted || this.ctx.stores.project.isReadOnly) return [];
    this.runner = new ScheduleRunner({
      schedules: this.schedules,
      owner: this.owner,
      now: this.ctx.now,
      execute: (s, run, signal) => executeRun(s, run, this.runDeps(), signal),
      onStart: (run) => this.ctx.emit({ type: 'schedules.changed', ids: [run.scheduleId] }),
      onRun: (done) => this.ran(done),
      onWarning: (m) => this.ctx.warn(m),
    });
    // A short command's engine runs a schedule only when asked to (run now), nothing that is due.
    return this.ctx.init.runSchedules === false ? [] : [this.runner];
  }

  /** Stops the runner between runs (a model call under way is cut short and its run recorded). */
  stop(): void {
    this.runner?.stop();
  }

  create(p: CreateScheduleParams): ScheduleDefinition {
    const rt = this.ctx.stores.runtime('project');
    const cadence = this.cadenceOf(p);
    if (!cadence) throw new EngineError('invalid_input', 'when: say when it runs ("every Monday at 10", "in 2 hours") or give a cadence');
    const s = this.ctx.write(rt, () =>
      this.schedules.create({
        goal: p.goal,
        cadence,
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.notificationPolicy ? { notificationPolicy: p.notificationPolicy } : {}),
        ...(p.channelId ? { channelId: p.channelId } : {}),
        ...(p.channelContextId ? { channelContextId: p.channelContextId } : {}),
        ...(p.createdBy ? { createdBy: p.createdBy } : {}),
      }),
    );
    this.changed([s.id]);
    return s;
  }

  preview(when: string, timezone: string | undefined): SchedulePreview {
    const now = this.ctx.now();
    const cadence = validateCadence(parsePhrase(when, { now, ...(timezone ? { timezone } : {}) }), {
      now,
      minIntervalSeconds: this.schedules.minIntervalSeconds,
    });
    const next = nextRunForCadence(cadence, now);
    if (!next) throw new EngineError('invalid_input', 'when: it has no due time left');
    const shown = { cadence, status: 'active', nextRunAt: next.toISOString(), nextTrigger: 'schedule' } as ScheduleDefinition;
    return { cadence, description: describeSchedule(shown, now), nextRunAt: next.toISOString() };
  }

  get(id: string): ScheduleDefinition | null {
    return this.schedules.find(id) ?? null;
  }

  list(filters: ScheduleSearchFilters): ScheduleSearchResult {
    return this.schedules.search(filters);
  }

  update(id: string, patch: ScheduleMethods['schedules.update']['params']['patch']): ScheduleDefinition {
    const rt = this.ctx.stores.runtime('project');
    const { when, timezone, cadence: given, ...rest } = patch;
    const cadence = this.cadenceOf({
      ...(when !== undefined ? { when } : {}),
      ...(given ? { cadence: given } : {}),
      ...(timezone ? { timezone } : {}),
    });
    const s = this.ctx.write(rt, () => this.schedules.update(id, { ...rest, ...(cadence ? { cadence } : {}) }));
    this.changed([s.id]);
    return s;
  }

  delete(id: string): { deleted: boolean } {
    const rt = this.ctx.stores.runtime('project');
    const deleted = this.ctx.write(rt, () => this.schedules.delete(id));
    if (!deleted) throw new EngineError('not_found', `No schedule with id ${id}.`);
    this.changed([id]);
    return { deleted };
  }

  async runNow(id: string): Promise<ScheduleRunRecord> {
    this.ctx.assertWritable(this.ctx.stores.runtime('project'));
    if (!this.runner)
      throw new EngineError('store_read_only', 'Schedules run only where the project store is owned, and this engine does not own it.');
    const done = await this.runner.runNow(id);
    if (!done) throw new EngineError('not_found', `No schedule with id ${id}.`);
    return done.run;
  }

  snooze(id: string, seconds: number): ScheduleDefinition {
    const rt = this.ctx.stores.runtime('project');
    const s = this.ctx.write(rt, () => this.schedules.snooze(id, new Date(this.ctx.now().getTime() + seconds * 1000)));
    this.changed([s.id]);
    return s;
  }

  runs(id: string, limit: number): ScheduleRunRecord[] {
    this.schedules.get(id); // not_found for an unknown schedule, rather than an empty history
    return this.schedules.runHistory(id, limit);
  }

  run(runId: string): ScheduleRunRecord {
    return this.schedules.runById(runId);
  }

  notices(limit: number): Notice[] {
    return pendingNotices(this.ctx.stores.project, this.ctx.now(), limit);
  }

  claimNotice(runId: string): { claimed: boolean } {
    const rt = this.ctx.stores.runtime('project');
    return { claimed: this.ctx.write(rt, () => claimNotice(this.ctx.stores.project, runId)) };
  }

  reminders(withinHours: number, limit: number): Reminders {
    return reminders(this.ctx.stores.project, this.ctx.now(), { withinMs: withinHours * 3_600_000, limit });
  }

  /** The cadence a request gives: a phrase read in its zone, or the cadence itself; undefined when neither. */
  private cadenceOf(p: ScheduleWhen): ScheduleCadence | undefined {
    if (p.when !== undefined && p.cadence !== undefined)
      throw new EngineError('invalid_input', 'when: give a phrase or a cadence, not both');
    if (p.cadence !== undefined) return p.cadence;
    if (p.when === undefined) return undefined;
    return parsePhrase(p.when, { now: this.ctx.now(), ...(p.timezone ? { timezone: p.timezone } : {}) });
  }

  private runDeps() {
    const ctx = this.ctx;
    return {
      recall: async (query: string, limit: number): Promise<RunMemory[]> => {
        const r = await this.search.search({ query, limit });
        return r.hits.map((h) => ({
          id: h.memory.id,
          title: h.memory.title,
          content: h.content,
          type: h.memory.type,
          updatedAt: h.memory.updatedAt,
        }));
      },
      changedSince: (since: string, limit: number) =>
        memoriesChangedSince(ctx.stores.project, { projectId: ctx.project.id, since, limit, now: ctx.now() }),
      llm: () => this.availableLlm(),
      llmTimeoutMs: ctx.config.memory.pipelineV2.extractionTimeout,
    };
  }

  /** The pipeline's LLM when the pipeline is on and the model answers; undefined otherwise (the run lists the memories). */
  private async availableLlm(): Promise<LlmProvider | undefined> {
    if (pipelineMode(this.ctx.config) === 'off') return undefined;
    const llm = this.llm();
    return (await llm.available()) ? llm : undefined;
  }

  private ran(done: FinishedRun): void {
    this.ctx.emit({
      type: 'schedule.ran',
      schedule: done.schedule,
      run: done.run,
      notify: wantsNotice(done.schedule.notificationPolicy, done.run.status),
    });
  }

  private changed(ids: string[]): void {
    this.runner?.kick();
    this.ctx.emit({ type: 'schedules.changed', ids });
  }
}
