/**
 * The "Suggestions" view: pending consolidation suggestions (docs/consolidation.md: memory A ↔ memory B,
 * similarity). Each suggestion expands to its two memories (click opens one); accept / reject
 * are inline actions and context-menu items (commands in suggestionCommands.ts; accept previews the merge). Refreshes on
 * the engine's memory.changed and suggestions.changed events (a duplicate scan ended, a pair was
 * dismissed, in any window) and engine restarts.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { MemorySummary, Suggestion } from '../../engine/protocol';
import type { TeamConflictInfo } from '../../engine/teamProtocol';
import { conflictLabel, conflictSides, conflictTip } from '../team/teamText';
import { Debounced } from '../common/debounce';
import { RowsWatch } from '../common/rowsWatch';
import { errorLine } from '../../present/errorText';
import { truncateLine } from '../../core/text/truncate';
import { plural } from '../../core/text/plural';
import { relativeTime } from '../../core/text/timeWords';
import { typeHeading } from '../../present/memoryRowText';
import { isDeactivating } from '../host/shutdown';

export const SUGGESTIONS_VIEW_ID = 'agentMemory.suggestions';
/** How many pending suggestions the view lists (the engine's list limit is 200). */
const LIST_LIMIT = 200;

interface Rows {
  list: Suggestion[];
  conflicts: TeamConflictInfo[];
}

export type SuggestionNode =
  | { kind: 'suggestion'; suggestion: Suggestion }
  | { kind: 'side'; side: 'A' | 'B'; memory: MemorySummary; suggestionId: string }
  /** Team memory: a memory changed here and by someone else at once (docs/team.md "Conflicts"). */
  | { kind: 'conflict'; conflict: TeamConflictInfo }
  | { kind: 'message'; text: string };

export class SuggestionsProvider implements vscode.TreeDataProvider<SuggestionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SuggestionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Events that change no row leave the tree alone (rowsWatch.ts says why). */
  readonly rows = new RowsWatch(
    () => this.fetchRows(),
    () => this.refresh(),
  );
  private readonly refreshLater = new Debounced(() => this.rows.check(), 150);
  private readonly subs: vscode.Disposable[] = [];
  /** The last list shown (tests and the view's badge read it). */
  last: Suggestion[] = [];
  /** The open team memory conflicts shown (listed before the suggestions). */
  conflicts: TeamConflictInfo[] = [];
  view: vscode.TreeView<SuggestionNode> | undefined;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        // A scan (of this window, another window or the schedule), a reject or a clear: the engine says when it ends.
        if (e.type === 'memory.changed' || e.type === 'suggestions.changed') this.refreshSoon();
        // A sync that found (or settled) a conflict.
        if (e.type === 'team.status' && e.status.connected && e.status.conflicts !== this.conflicts.length) this.refreshSoon();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        if (s.state === 'ready') void this.rows.check(); // a takeover most often changes no row
        if (s.state === 'failed') this.refresh();
      }),
    );
  }

  refresh(): void {
    if (!isDeactivating()) this.changed.fire(undefined); // see shutdown.ts
  }

  refreshSoon(): void {
    this.refreshLater.trigger();
  }

  private async fetchRows(): Promise<Rows> {
    const [list, conflicts] = await Promise.all([
      this.engine.request('suggestions.list', { status: 'pending', limit: LIST_LIMIT }),
      this.engine.request('team.conflicts', {}).catch(() => [] as TeamConflictInfo[]),
    ]);
    return { list, conflicts };
  }

  async getChildren(node?: SuggestionNode): Promise<SuggestionNode[]> {
    if (node) {
      if (node.kind !== 'suggestion') return [];
      const s = node.suggestion;
      return [
        { kind: 'side', side: 'A', memory: s.a, suggestionId: s.id },
        { kind: 'side', side: 'B', memory: s.b, suggestionId: s.id },
      ];
    }
    try {
      const rows = await this.rows.read();
      const { list, conflicts } = rows;
      this.last = list;
      this.conflicts = conflicts;
      this.setBadge();
      // Empty → no children, so the view's welcome content shows.
      return [
        ...conflicts.map((conflict): SuggestionNode => ({ kind: 'conflict', conflict })),
        ...list.map((suggestion): SuggestionNode => ({ kind: 'suggestion', suggestion })),
      ];
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list suggestions: ${errorLine(e)}` }];
    }
  }

  private setBadge(): void {
    if (!this.view) return;
    const n = this.last.length + this.conflicts.length;
    const parts = [
      ...(this.conflicts.length ? [plural(this.conflicts.length, 'team memory conflict')] : []),
      ...(this.last.length ? [plural(this.last.length, 'consolidation suggestion')] : []),
    ];
    this.view.badge = n ? { value: n, tooltip: parts.join(', ') } : undefined;
  }

  getTreeItem(node: SuggestionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'conflict':
        return conflictItem(node.conflict);
      case 'suggestion': {
        const s = node.suggestion;
        // The similarity leads the label: a description would be cut off at the default sidebar width.
        const item = new vscode.TreeItem(
          `${percent(s.similarity)} similar · ${short(s.a, 24)} ↔ ${short(s.b, 24)}`,
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = `suggestion:${s.id}`;
        const tip = new vscode.MarkdownString();
        tip.appendMarkdown('**A** (kept on merge)\n\n');
        tip.appendText(s.a.preview);
        tip.appendMarkdown('\n\n**B** (merged into A)\n\n');
        tip.appendText(s.b.preview);
        tip.appendMarkdown(`\n\n---\n\n`);
        tip.appendText(`Suggested ${relativeTime(s.createdAt)} · cosine similarity ${s.similarity.toFixed(3)}`);
        item.tooltip = tip;
        item.iconPath = new vscode.ThemeIcon('git-merge');
        item.contextValue = 'suggestion';
        return item;
      }
      case 'side': {
        const m = node.memory;
        const item = new vscode.TreeItem(`${node.side}: ${short(m, 70)}`, vscode.TreeItemCollapsibleState.None);
        item.id = `suggestion:${node.suggestionId}:${node.side}`;
        item.description = `${typeHeading(m.type)}${m.scope === 'global' ? ' · global' : ''}`;
        const tip = new vscode.MarkdownString();
        tip.appendMarkdown(node.side === 'A' ? '**A** — kept on merge\n\n' : '**B** — merged into A\n\n');
        tip.appendText(m.preview);
        item.tooltip = tip;
        item.iconPath = new vscode.ThemeIcon(node.side === 'A' ? 'arrow-small-left' : 'arrow-small-right');
        item.contextValue = 'suggestionMemory';
        item.command = { command: 'agentMemory.openMemory', title: 'Open Memory', arguments: [m.id] };
        return item;
      }
      case 'message':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/** A team conflict's row: the memory, whose version won; keep mine / keep theirs are its inline actions. */
function conflictItem(c: TeamConflictInfo): vscode.TreeItem {
  const item = new vscode.TreeItem(conflictLabel(c), vscode.TreeItemCollapsibleState.None);
  item.id = `team-conflict:${c.id}`;
  const sides = conflictSides(c);
  const words = conflictTip(c);
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown('**');
  tip.appendText(words.mine);
  tip.appendMarkdown('**\n\n');
  tip.appendText(sides.mine);
  tip.appendMarkdown('\n\n**');
  tip.appendText(words.theirs);
  tip.appendMarkdown('**\n\n');
  tip.appendText(sides.theirs);
  tip.appendMarkdown('\n\n---\n\n');
  tip.appendText(words.footer);
  item.tooltip = tip;
  item.iconPath = new vscode.ThemeIcon('git-pull-request-draft');
  item.contextValue = 'teamConflict';
  item.accessibilityInformation = { label: `Team memory conflict: ${conflictLabel(c)}` };
  item.command = { command: 'agentMemory.openMemory', title: 'Open Memory', arguments: [c.memoryId] };
  return item;
}

function short(m: MemorySummary, max = 40): string {
  return truncateLine(m.title || m.preview, max);
}

function percent(similarity: number): string {
  return `${Math.round(similarity * 100)}%`;
}
