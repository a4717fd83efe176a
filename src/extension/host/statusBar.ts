/**
 * The status bar item: engine and pipeline state at a glance; click → diagnostics. Problems in
 * agent.yaml or the settings turn it into a warning (click → the Problems panel).
 */
import * as vscode from 'vscode';
import type { EngineClient, EngineStateChange } from '../../engine/client/engineClient';
import { handoverText, type HandoverTracker } from './engineHost';
import type { PipelineStatus, StoreHealthInfo } from '../../engine/protocol';
import type { ConfigProblemSummary } from '../config/configDiagnostics';
import { Debounced } from '../common/debounce';
import { plural } from '../../core/text/plural';
import { HasMemoriesContext } from './walkthroughContext';

export class StatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('agentMemory.status', vscode.StatusBarAlignment.Left, 10);
  private count: number | undefined;
  private readonly hasMemories = new HasMemoriesContext();
  private pipeline: PipelineStatus | undefined;
  private config: ConfigProblemSummary = { errors: 0, warnings: 0 };
  /** Stores that cannot take writes now (disk full, I/O error, read-only), with the store's sentence. */
  private unhealthy: { store: string; health: StoreHealthInfo }[] = [];
  private readonly refreshLater = new Debounced(() => this.refresh(), 300);
  private readonly subs: vscode.Disposable[] = [];
  /** The store's owner (another window or process) went away and this window reconnects (not a crash). */
  private handover: EngineStateChange['handover'];

  constructor(
    private readonly engine: EngineClient,
    private readonly handovers?: HandoverTracker,
  ) {
    this.item.name = 'Agent Memory';
    this.item.command = 'agentMemory.showDiagnostics';
    this.render();
    this.item.show();
    this.subs.push(
      engine.onStateChange((s) => {
        const handover = this.handovers?.of(s) ?? s.handover;
        if (handover || s.state !== 'restarting') this.handover = handover;
        this.render();
        this.refreshSoon();
      }),
      engine.onEvent((e) => {
        if (e.type === 'memory.changed') this.refreshSoon();
        if (e.type === 'pipeline.state') {
          this.pipeline = e.status;
          this.render();
        }
        if (e.type === 'store.health') this.refreshSoon();
      }),
    );
  }

  /** Configuration problems (configDiagnostics.ts): shown as a warning state until fixed. */
  setConfigProblems(summary: ConfigProblemSummary): void {
    this.config = summary;
    this.render();
  }

  /** Re-reads counts and pipeline state (debounced: a burst of writes is one refresh). */
  refreshSoon(): void {
    this.refreshLater.trigger();
  }

  async refresh(): Promise<void> {
    if (this.engine.state !== 'ready') return this.render();
    try {
      const [stats, pipeline] = await Promise.all([this.engine.request('stats', {}), this.engine.request('pipeline.status', {})]);
      this.count = stats.project.memories + stats.global.memories;
      this.hasMemories.update(this.count);
      this.unhealthy = (['project', 'global'] as const)
        .filter((name) => stats[name].health && stats[name].health.state !== 'ok')
        .map((name) => ({ store: name, health: stats[name].health }));
      this.pipeline = pipeline;
    } catch {
      // The state listener renders engine problems.
    }
    this.render();
  }

  private render(): void {
    const state = this.engine.state;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown('**Agent Memory**\n\n');
    this.item.command = 'agentMemory.showDiagnostics';
    switch (state) {
      case 'ready':
        this.renderReady(tip);
        break;
      case 'starting':
        this.item.text = '$(sync~spin) Memory: starting';
        tip.appendText('The memory engine is starting.');
        break;
      case 'restarting':
        if (this.handover) {
          // The store's owner (another window or process) went away: no crash of this window.
          this.item.text = '$(sync~spin) Memory: reconnecting';
          const then = this.handover.restarting
            ? 'this window reconnects to it'
            : 'this window reconnects to the next owner, or serves the memory itself';
          tip.appendText(`${handoverText(this.handover).replace(/: reconnecting\.$/, '')}; ${then}.`);
          break;
        }
        this.item.text = `$(sync~spin) Memory: restarting`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        tip.appendText(`The memory engine crashed and is restarting (restart ${this.engine.restarts}).`);
        break;
      case 'failed':
        this.item.text = '$(error) Memory: stopped';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        tip.appendText('The memory engine stopped. Run "Agent Memory: Restart Engine".');
        break;
      default:
        this.item.text = '$(circle-slash) Memory: off';
        tip.appendText('The memory engine is not running.');
    }
    if (this.item.command === 'agentMemory.showDiagnostics') tip.appendMarkdown('\n\nClick for diagnostics.');
    this.item.tooltip = tip;
  }

  /** The engine is ready: count, pipeline flag and store health in the item; details in the tooltip. */
  private renderReady(tip: vscode.MarkdownString): void {
    const degraded = this.pipeline?.state === 'degraded';
    const problems = this.config.errors + this.config.warnings;
    const count = this.count !== undefined ? `: ${this.count}` : '';
    const storeFlag = this.unhealthy.length ? ` · ${this.unhealthy[0]!.health.state === 'disk_full' ? 'disk full' : 'read-only'}` : '';
    this.item.text = `$(${degraded || problems || storeFlag ? 'warning' : 'database'}) Memory${count}${this.pipelineFlag()}${storeFlag}`;
    this.item.backgroundColor = problems || storeFlag ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    for (const u of this.unhealthy) tip.appendText(`The ${u.store} store: ${u.health.detail} `);
    this.item.command = problems ? 'workbench.actions.view.problems' : 'agentMemory.showDiagnostics';
    if (problems) this.appendProblemsTip(tip, problems);
    tip.appendText(`Engine ready (project ${this.engine.ready?.projectId ?? '?'}). `);
    this.appendPipelineTip(tip);
  }

  private appendProblemsTip(tip: vscode.MarkdownString, problems: number): void {
    const where = this.config.file ?? 'the settings';
    tip.appendText(`Configuration: ${problems} problem${problems === 1 ? '' : 's'} in ${where} (defaults are used for them). `);
    tip.appendText('Click for the Problems panel. ');
  }

  /** Paused / restricted / the pipeline mode at a glance (nothing extra when the pipeline is off). */
  private pipelineFlag(): string {
    const p = this.pipeline;
    return p?.restricted ? ' $(shield) read-only' : p?.paused ? ' $(debug-pause) paused' : p && p.mode !== 'off' ? ` · ${p.mode}` : '';
  }

  private appendPipelineTip(tip: vscode.MarkdownString): void {
    if (!this.pipeline) return;
    tip.appendText(
      `Pipeline: ${this.pipeline.mode} mode, ${this.pipeline.paused ? 'paused' : this.pipeline.state} — ${this.pipeline.detail}`,
    );
    if (this.pipeline.pendingReviews)
      tip.appendText(
        ` ${plural(this.pipeline.pendingReviews, 'proposal')} ${this.pipeline.pendingReviews === 1 ? 'waits' : 'wait'} for review.`,
      );
  }

  dispose(): void {
    this.refreshLater.cancel();
    this.hasMemories.dispose();
    for (const s of this.subs) s.dispose();
    this.item.dispose();
  }
}
