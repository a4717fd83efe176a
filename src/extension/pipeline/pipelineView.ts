/**
 * The "Pipeline" view: which project the engine serves, the pipeline mode (docs/pipeline.md), whether the job
 * workers run or are paused, queue counts, full-mode proposals waiting for review (approve /
 * reject inline), the embedder and the LLM in use, and the maintenance health score.
 * Everything comes from pipeline.diagnostics + reviews.list; refreshed on the engine's
 * pipeline.state and memory.changed events.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workerState } from './pipelineReadiness';
import type { EngineClient } from '../../engine/client/engineClient';
import type { PipelineDiagnostics, PipelineReview } from '../../engine/protocol';
import { Debounced } from '../common/debounce';
import { errorLine } from '../../present/errorText';
import { truncateLine } from '../../core/text/truncate';
import { plural } from '../../core/text/plural';
import { humanDate, relativeTime } from '../../core/text/timeWords';
import { isDeactivating } from '../host/shutdown';

export const PIPELINE_VIEW_ID = 'agentMemory.pipeline';

export interface InfoNode {
  kind: 'info';
  key: string;
  label: string;
  description?: string;
  icon: string;
  tooltip?: string;
  command?: vscode.Command;
  contextValue?: string;
  children?: PipelineNode[];
}

export type PipelineNode = InfoNode | { kind: 'review'; review: PipelineReview };

const MODE_HELP: Record<string, string> = {
  off: 'No extraction: memories are stored as given.',
  shadow: 'Extraction and decisions run and are recorded in history; nothing is written.',
  controlled: 'Extracted facts are added as new memories; existing memories are never changed.',
  full: 'Facts may also update or delete existing memories; contradictions wait for your review; every change can be undone.',
};

export class PipelineViewProvider implements vscode.TreeDataProvider<PipelineNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PipelineNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly refreshLater = new Debounced(() => this.refresh(), 300);
  private readonly subs: vscode.Disposable[] = [];
  /** What the view showed last (tests read it). */
  last: { diagnostics?: PipelineDiagnostics; reviews: PipelineReview[]; error?: string } = { reviews: [] };
  /** The folder of the window whose settings the shared engine runs, when they differ from this window's (ownership.ts). */
  private modeSource: string | undefined;
  view: vscode.TreeView<PipelineNode> | undefined;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'pipeline.state' || e.type === 'memory.changed') this.refreshSoon();
      }),
      engine.onStateChange((s) => {
        // Stopping is the window closing (deactivate) or a restart, which reports starting next:
        // a refresh now would reach a workbench that is going away ("Unable to refresh tree view
        // agentMemory.pipeline: Canceled" in the log on every window close).
        const stopping = s.state === 'stopping' || s.state === 'stopped';
        this.refreshLater.hold(stopping);
        if (!stopping) this.refresh();
      }),
    );
  }

  refresh(): void {
    if (isDeactivating()) return; // see shutdown.ts
    this.changed.fire(undefined);
  }

  /** The mode row says whose settings run (`undefined`: this window's own). */
  setModeSource(ownerFolder: string | undefined): void {
    if (ownerFolder === this.modeSource) return;
    this.modeSource = ownerFolder;
    this.refresh();
  }

  refreshSoon(): void {
    this.refreshLater.trigger();
  }

  async getChildren(node?: PipelineNode): Promise<PipelineNode[]> {
    if (node) return node.kind === 'info' ? (node.children ?? []) : [];
    return this.rootNodes();
  }

  /** The root items, read fresh from the engine. */
  async rootNodes(): Promise<PipelineNode[]> {
    const project = this.projectNode();
    if (this.engine.state !== 'ready') {
      return [project, { kind: 'info', key: 'engine', label: `Engine: ${this.engine.state}`, icon: 'sync~spin' }];
    }
    try {
      const [d, reviews] = await Promise.all([this.engine.request('pipeline.diagnostics', {}), this.engine.request('reviews.list', {})]);
      this.last = { diagnostics: d, reviews };
      if (this.view)
        this.view.badge = reviews.length
          ? { value: reviews.length, tooltip: `${plural(reviews.length, 'pipeline proposal')} to review` }
          : undefined;
      return [project, ...statusNodes(d, reviews, this.modeSource)];
    } catch (e) {
      this.last = { reviews: [], error: (e as Error).message };
      return [project, { kind: 'info', key: 'error', label: `Cannot read the pipeline state: ${errorLine(e)}`, icon: 'error' }];
    }
  }

  private projectNode(): InfoNode {
    const root = this.engine.currentInit.workspaceRoot;
    const id = this.engine.ready?.projectId ?? '…';
    const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    return {
      kind: 'info',
      key: 'project',
      label: `Project: ${root ? path.basename(root) : 'no folder'}`,
      // Short enough to show at the default sidebar width: the id without its host (the tooltip has all of it).
      description: id.split('/').slice(-2).join('/'),
      icon: 'repo',
      tooltip: `Memories of project ${id}${root ? `\nFolder: ${root}` : ''}${multi ? '\nClick to switch to another workspace folder.' : ''}`,
      ...(multi ? { command: { command: 'agentMemory.switchProjectFolder', title: 'Switch Project Folder…' } } : {}),
    };
  }

  getTreeItem(node: PipelineNode): vscode.TreeItem {
    if (node.kind === 'review') return reviewItem(node.review);
    // Only the reviews open by themselves (they need a decision); queue and health details fold away.
    const state = !node.children?.length
      ? vscode.TreeItemCollapsibleState.None
      : node.key === 'reviews'
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(node.label, state);
    item.id = `pipeline:${node.key}`;
    if (node.description) item.description = node.description;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.tooltip) item.tooltip = node.tooltip;
    // A string tooltip is what screen readers would read instead of the label: say both.
    item.accessibilityInformation = { label: [node.label, node.description, node.tooltip].filter(Boolean).join(', ') };
    if (node.command) item.command = node.command;
    if (node.contextValue) item.contextValue = node.contextValue;
    return item;
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/**
 * The status items below the project line (pure: the e2e tests check them through the provider).
 * `modeSource`: the folder of the window whose settings the shared engine runs, when not this one's.
 */
export function statusNodes(d: PipelineDiagnostics, reviews: PipelineReview[], modeSource?: string): PipelineNode[] {
  return [
    ...(d.status.restricted ? [restrictedNode()] : []),
    modeNode(d.status, modeSource),
    workerNode(d),
    queueNode(d),
    reviewsNode(reviews),
    embedderNode(d.embedder),
    llmNode(d.llm),
    healthNode(d.health),
  ];
}

type PipelineStatusInfo = PipelineDiagnostics['status'];

function restrictedNode(): PipelineNode {
  return {
    kind: 'info',
    key: 'restricted',
    label: 'Restricted mode: workspace not trusted',
    description: 'read-only',
    icon: 'shield',
    tooltip: 'Memories can be read and searched; nothing is written and the pipeline does not run until you trust this workspace.',
    command: { command: 'workbench.trust.manage', title: 'Manage Workspace Trust' },
  };
}

function modeNode(s: PipelineStatusInfo, source: string | undefined): PipelineNode {
  const by = source !== undefined ? `set in ${path.basename(source) || 'another folder'}` : undefined;
  return {
    kind: 'info',
    key: 'mode',
    label: `Mode: ${s.mode}`,
    ...(by ? { description: by } : {}),
    icon: 'settings-gear',
    tooltip:
      `${MODE_HELP[s.mode] ?? ''}\n` +
      (by
        ? `The window that serves this project's memory (${source}) runs it with its own settings, which differ from this window's.\n`
        : '') +
      'Click to switch the mode.',
    command: { command: 'agentMemory.switchPipelineMode', title: 'Switch Pipeline Mode…' },
    contextValue: 'pipelineMode',
  };
}

function workerNode(d: PipelineDiagnostics): PipelineNode {
  const s = d.status;
  const worker = workerState(d);
  const waiting = worker.startsWith('waiting');
  return {
    kind: 'info',
    key: 'worker',
    label: `Worker: ${worker}`,
    ...(worker.startsWith(s.state) ? {} : { description: s.state }),
    tooltip: waiting ? `${s.detail}\nJobs stay queued until Ollama at ${d.llm.url} has ${d.llm.model}; nothing is lost.` : s.detail,
    icon: s.paused ? 'debug-pause' : worker === 'running' ? 'play-circle' : worker === 'degraded' || waiting ? 'warning' : 'circle-slash',
    contextValue: s.restricted ? 'pipelineWorker.restricted' : s.paused ? 'pipelineWorker.paused' : 'pipelineWorker.running',
  };
}

function queueNode(d: PipelineDiagnostics): PipelineNode {
  const s = d.status;
  const q = {
    pending: s.jobs.pending ?? 0,
    leased: s.jobs.leased ?? 0,
    dead: s.jobs.dead ?? 0,
    completed: s.jobs.completed ?? d.completedJobs,
  };
  return {
    kind: 'info',
    key: 'queue',
    label: 'Queue',
    // What needs attention only (the children list every count): waiting jobs, and failed ones when there are any.
    description: [`${q.pending} pending`, ...(q.dead ? [`${q.dead} failed`] : [])].join(' · '),
    tooltip: `${q.pending} pending · ${q.leased} running · ${q.dead} failed · ${q.completed} completed`,
    icon: 'list-unordered',
    children: (Object.entries(q) as [keyof typeof QUEUE_WORDS, number][]).map(([k, n]) => ({
      kind: 'info',
      key: `queue.${k}`,
      label: QUEUE_WORDS[k],
      description: String(n),
      icon: k === 'dead' && n ? 'error' : 'circle-small',
    })),
  };
}

function reviewsNode(reviews: PipelineReview[]): PipelineNode {
  return {
    kind: 'info',
    key: 'reviews',
    label: 'Pending reviews',
    description: String(reviews.length),
    icon: reviews.length ? 'report' : 'pass',
    tooltip: 'Full-mode UPDATE/DELETE proposals the contradiction detector held back. Approve applies them (undo-able); reject drops them.',
    children: reviews.map((review) => ({ kind: 'review', review })),
  };
}

function embedderNode(e: PipelineDiagnostics['embedder']): PipelineNode {
  return {
    kind: 'info',
    key: 'embedder',
    label: `Embedder: ${e ? e.provider : 'none (keyword search only)'}`,
    // The space without the provider it repeats ("builtin-use-lite-512" → "use-lite-512").
    description: e ? e.space.replace(new RegExp(`^${e.provider}[-:]`), '') : '',
    icon: e?.degraded || !e ? 'warning' : 'symbol-array',
    tooltip: e?.reason ?? 'No embedder could be opened.',
  };
}

function llmNode(l: PipelineDiagnostics['llm']): PipelineNode {
  const llmState = !l.reachable ? 'Ollama not reachable' : l.modelPresent ? 'ready' : `model ${l.model} not installed`;
  return {
    kind: 'info',
    key: 'llm',
    label: `LLM: ${l.model}`,
    description: llmState,
    icon: l.reachable && l.modelPresent ? 'hubot' : 'warning',
    tooltip: `Ollama at ${l.url}: ${llmState}${l.error ? ` (${l.error})` : ''}. Only the pipeline needs it (extraction and decisions).`,
  };
}

function healthNode(h: PipelineDiagnostics['health']): PipelineNode {
  return {
    kind: 'info',
    key: 'health',
    label: 'Health',
    description: `${Math.round(h.score * 100)}%`,
    icon: h.score >= 0.8 ? 'heart' : 'warning',
    tooltip: `Maintenance checks of ${humanDate(h.at)} (${relativeTime(h.at)})`,
    children: [
      {
        kind: 'info',
        key: 'health.dead',
        label: 'Failed jobs',
        description: `${h.queue.dead} (${(h.queue.deadRate * 100).toFixed(1)}%)`,
        icon: 'circle-small',
      },
      // A job whose worker stopped without finishing it (its lease ran out): it is taken up again.
      { kind: 'info', key: 'health.stale', label: 'Stuck jobs', description: String(h.queue.staleLeases), icon: 'circle-small' },
      {
        kind: 'info',
        key: 'health.index',
        label: 'Search index',
        description: h.index.consistent
          ? 'consistent'
          : `${plural(h.index.ftsRows, 'entry', 'entries')} for ${plural(h.index.memoryRows, 'memory', 'memories')}`,
        icon: 'circle-small',
      },
      {
        kind: 'info',
        key: 'health.tombstones',
        label: 'Removed, kept for restore',
        description: `${h.storage.tombstones} of ${h.storage.total}`,
        icon: 'circle-small',
      },
    ],
  };
}

function reviewItem(r: PipelineReview): vscode.TreeItem {
  const label = r.action === 'DELETE' ? `Delete: ${clip(r.targetContent ?? 'a memory since removed')}` : `Update: ${clip(r.factContent)}`;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `review:${r.id}`;
  item.description = `${Math.round(r.confidence * 100)}%${r.conflict ? ' · conflict' : ''}`;
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown(`**${r.action === 'DELETE' ? 'Delete' : 'Update'}** of a memory\n\n**Now:** `);
  tip.appendText(r.targetContent ?? '(gone)');
  if (r.action === 'UPDATE') {
    tip.appendMarkdown('\n\n**Proposed:** ');
    tip.appendText(r.factContent);
  }
  tip.appendMarkdown('\n\n**Why:** ');
  tip.appendText(r.reason);
  if (r.conflict) {
    tip.appendMarkdown('\n\n**Held back because:** ');
    tip.appendText(r.conflict);
  }
  item.tooltip = tip;
  item.iconPath = new vscode.ThemeIcon(r.action === 'DELETE' ? 'trash' : 'edit');
  item.accessibilityInformation = { label: `Proposal: ${label}, ${item.description}` };
  item.contextValue = 'pipelineReview';
  item.command = { command: 'agentMemory.openMemory', title: 'Open Memory', arguments: [r.targetId] };
  return item;
}

/** The job queue's states as people say them (the store's words: pending, leased, dead, completed). */
const QUEUE_WORDS = { pending: 'Waiting', leased: 'Running', dead: 'Failed', completed: 'Completed' } as const;

function clip(text: string, max = 60): string {
  return truncateLine(text, max);
}
