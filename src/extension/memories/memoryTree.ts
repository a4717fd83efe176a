/**
 * The sidebar tree: memories grouped by type or by tag (a toggle in the view title; counts
 * from the engine), newest first, paged ("Load more…"). Each memory shows its title, age,
 * importance and scope. Refreshes on the engine's memory.changed events. Tree-only commands
 * (grouping toggle, copy, open in search) are registered here.
 */
import * as vscode from 'vscode';
import { sharedByText } from '../team/teamText';
import type { EngineClient } from '../../engine/client/engineClient';
import type { ListResult, MemorySummary } from '../../engine/protocol';
import { Debounced } from '../common/debounce';
import { compactAgo, describeExpiry, humanDate, relativeTime } from '../../core/text/timeWords';
import { errorLine, errorNotification, memoryGoneError } from '../../present/errorText';
import { truncateLine } from '../../core/text/truncate';
import { LABEL_GRAPHEMES, realTitle, rowText, typeHeading } from '../../present/memoryRowText';

export { typeHeading };
import { importanceWord } from '../../core/text/importance';
import type { CommandId, ContextKey } from '../commandIds';
import { isDeactivating } from '../host/shutdown';

export const TREE_VIEW_ID = 'agentMemory.memories';
export const PAGE_SIZE = 50;

const TYPE_ICONS: Record<string, string> = {
  general: 'note',
  solution: 'lightbulb',
  problem: 'issues',
  code_pattern: 'code',
  fix: 'tools',
  error: 'error',
  workflow: 'github-action',
  decision: 'law',
  fact: 'info',
  preference: 'heart',
  procedural: 'list-ordered',
  semantic: 'symbol-key',
  document_chunk: 'file-text',
};

export type Grouping = 'type' | 'tag';
/** Context key for the view-title toggle (package.json menus). */
export const GROUPING_CONTEXT = 'agentMemory.treeGrouping' satisfies ContextKey;
const GROUPING_STATE = 'agentMemory.treeGrouping';

export type TreeNode =
  | { kind: 'type'; type: string; count: number }
  /** A tag group; `tag: null` is the group of memories without a tag. */
  | { kind: 'tag'; tag: string | null; count: number }
  /** `group`: the tag group key when grouped by tag (a memory can be in several). */
  | { kind: 'memory'; memory: MemorySummary; group?: string }
  /** `type`: the group key given to treeLoadMore (a type, or `tag:<name>` / `tag:` for tag groups). */
  | { kind: 'more'; type: string; remaining: number }
  | { kind: 'message'; text: string };

const groupKey = (node: Extract<TreeNode, { kind: 'type' | 'tag' }>) => (node.kind === 'type' ? node.type : `tag:${node.tag ?? ''}`);

export class MemoryTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** How many items of each type group are shown (grows by PAGE_SIZE with "Load more…"). */
  private readonly shown = new Map<string, number>();
  private readonly refreshLater = new Debounced(() => this.refresh(), 150);
  private readonly subs: vscode.Disposable[] = [];
  private groupingMode: Grouping;

  /** `state` (the workspace state) keeps the grouping across sessions. */
  constructor(
    private readonly engine: EngineClient,
    private readonly state?: vscode.Memento,
  ) {
    this.groupingMode = state?.get<Grouping>(GROUPING_STATE) === 'tag' ? 'tag' : 'type';
    void vscode.commands.executeCommand('setContext', GROUPING_CONTEXT, this.groupingMode);
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'memory.changed') this.refreshSoon();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        if (s.state === 'ready' || s.state === 'failed') this.refresh();
      }),
    );
  }

  refresh(): void {
    if (isDeactivating()) return; // see shutdown.ts
    this.changed.fire(undefined);
  }

  refreshSoon(): void {
    this.refreshLater.trigger();
  }

  get grouping(): Grouping {
    return this.groupingMode;
  }

  /** Switches between grouping by type and by tag (the view-title toggle). */
  async setGrouping(mode: Grouping): Promise<void> {
    this.groupingMode = mode;
    this.shown.clear();
    await this.state?.update(GROUPING_STATE, mode);
    await vscode.commands.executeCommand('setContext', GROUPING_CONTEXT, mode);
    this.refresh();
  }

  loadMore(type: string): void {
    this.shown.set(type, (this.shown.get(type) ?? PAGE_SIZE) + PAGE_SIZE);
    this.refresh();
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    try {
      if (!node) {
        // Empty → no children, so the view's welcome content shows.
        if (this.groupingMode === 'tag') {
          const c = await this.engine.request('memory.tagCounts', {});
          const groups: TreeNode[] = Object.entries(c.tags)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([tag, count]) => ({ kind: 'tag', tag, count }));
          if (c.untagged) groups.push({ kind: 'tag', tag: null, count: c.untagged });
          return groups;
        }
        const counts = await this.engine.request('memory.typeCounts', {});
        return Object.entries(counts)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([type, count]) => ({ kind: 'type', type, count }));
      }
      if (node.kind !== 'type' && node.kind !== 'tag') return [];
      const key = groupKey(node);
      const want = this.shown.get(key) ?? PAGE_SIZE;
      const page = (offset: number, limit: number): Promise<ListResult> =>
        node.kind === 'type'
          ? this.engine.request('memory.list', { types: [node.type], offset, limit })
          : node.tag === null
            ? this.engine.request('memory.listUntagged', { offset, limit })
            : this.engine.request('memory.list', { tags: [node.tag], offset, limit });
      const items: MemorySummary[] = [];
      let total = 0;
      // The engine pages by at most 100: fetch pages until `want` items are there.
      while (items.length < want) {
        const p = await page(items.length, Math.min(100, want - items.length));
        total = p.total;
        items.push(...p.items);
        if (p.items.length === 0 || items.length >= total) break;
      }
      const out: TreeNode[] = items.map((memory) =>
        node.kind === 'tag' ? { kind: 'memory', memory, group: key } : { kind: 'memory', memory },
      );
      if (total > items.length) out.push({ kind: 'more', type: key, remaining: total - items.length });
      return out;
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list memories: ${errorLine(e)}` }];
    }
  }

  private memoryItem(node: Extract<TreeNode, { kind: 'memory' }>): vscode.TreeItem {
    const m = node.memory;
    const full = m.title || firstLine(m.preview);
    const row = rowText(m, full);
    // A label that fills the sidebar hides the description: cut it so the age shows at the
    // default width; the tooltip has the full title and text.
    const item = new vscode.TreeItem(truncateLine(row.label, LABEL_GRAPHEMES), vscode.TreeItemCollapsibleState.None);
    // The same memory can sit in several tag groups: the id says which group it is in.
    item.id = node.group !== undefined ? `memory:${node.group}:${m.id}` : `memory:${m.id}`;
    item.description = [row.place, memoryDescription(m, this.groupingMode)].filter(Boolean).join(' · ');
    const life = describeExpiry(m.expiresAt);
    const tip = new vscode.MarkdownString();
    // A title that only repeats the text's first words is not shown twice.
    if (realTitle(m.title, m.preview)) tip.appendText(`${m.title}\n\n`);
    tip.appendText(m.preview); // appendText escapes: memory text is never rendered as markdown
    tip.appendMarkdown(`\n\n---\n`);
    tip.appendText(
      [
        typeHeading(m.type),
        m.scope === 'global' ? 'global (every project)' : 'this project',
        `${importanceWord(m.importance)} importance (${m.importance})`,
        life ? `${life} (${humanDate(m.expiresAt!)})` : 'permanent',
        `added ${relativeTime(m.createdAt)} (${humanDate(m.createdAt)})`,
        // Team memory: who made the version the server holds (docs/team.md "In VS Code").
        ...(m.sharedBy ? [`last shared by ${sharedByText(m.sharedBy)}`] : []),
        ...(m.tags.length ? [m.tags.map((t) => `#${t}`).join(' ')] : []),
      ].join(' · '),
    );
    item.tooltip = tip;
    item.accessibilityInformation = { label: `${full}, ${item.description}` };
    item.contextValue = m.expiresAt ? 'memory' : 'memory.permanent';
    item.iconPath = new vscode.ThemeIcon(m.scope === 'global' ? 'globe' : 'circle-small-filled');
    item.command = { command: 'agentMemory.openMemory', title: 'Open Memory', arguments: [m.id] };
    return item;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'type': {
        const item = new vscode.TreeItem(typeHeading(node.type), vscode.TreeItemCollapsibleState.Expanded);
        item.id = `type:${node.type}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.type] ?? 'note');
        item.contextValue = 'memoryType';
        return item;
      }
      case 'tag': {
        const item = new vscode.TreeItem(node.tag === null ? '(untagged)' : `#${node.tag}`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `tag:${node.tag ?? ''}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(node.tag === null ? 'circle-slash' : 'tag');
        item.contextValue = 'memoryTag';
        return item;
      }
      case 'memory':
        return this.memoryItem(node);
      case 'more': {
        const item = new vscode.TreeItem(`Load more… (${node.remaining} more)`, vscode.TreeItemCollapsibleState.None);
        item.id = `more:${node.type}`; // the group key (type, or tag:<name>)
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: 'agentMemory.treeLoadMore', title: 'Load More', arguments: [node.type] };
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

/**
 * The short line after the title: the remaining lifetime (permanent shows none), the age,
 * importance only when it is not normal, "global" for a global memory (the icon is a globe),
 * then the tags (grouped by type) or the type (grouped by tag).
 */
export function memoryDescription(m: MemorySummary, grouping: Grouping, now = Date.now()): string {
  const importance = importanceWord(m.importance);
  return [
    describeExpiry(m.expiresAt, new Date(now)),
    compactAgo(m.createdAt, now),
    importance === 'normal' ? undefined : `${importance} importance`,
    m.scope === 'global' ? 'global' : undefined,
    ...(grouping === 'type' ? m.tags.map((t) => `#${t}`) : [typeHeading(m.type).toLowerCase()]),
  ]
    .filter(Boolean)
    .join(' · ');
}

function firstLine(text: string): string {
  return truncateLine(text, 80);
}

/** The tree's own commands: grouping toggle, copy a memory's content, open it in the search panel. */
export const TREE_COMMANDS = {
  groupByTag: 'agentMemory.treeGroupByTag',
  groupByType: 'agentMemory.treeGroupByType',
  copyMemory: 'agentMemory.copyMemory',
  openInSearch: 'agentMemory.openInSearch',
} as const satisfies Record<string, CommandId>;

function memoryOf(arg: unknown): { id: string; title?: string } | undefined {
  if (typeof arg === 'string') return { id: arg };
  const n = arg as TreeNode | undefined;
  return n && typeof n === 'object' && n.kind === 'memory'
    ? { id: n.memory.id, title: n.memory.title || firstLine(n.memory.preview) }
    : undefined;
}

export function registerTreeCommands(context: vscode.ExtensionContext, engine: EngineClient, tree: MemoryTreeProvider): void {
  const reg = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          void vscode.window.showErrorMessage(errorNotification('', e));
          return undefined;
        }
      }),
    );
  reg(TREE_COMMANDS.groupByTag, () => tree.setGrouping('tag'));
  reg(TREE_COMMANDS.groupByType, () => tree.setGrouping('type'));
  reg(TREE_COMMANDS.copyMemory, async (arg) => {
    const m = memoryOf(arg);
    if (!m) return undefined;
    const rec = await engine.request('memory.get', { id: m.id });
    if (!rec) throw memoryGoneError();
    await vscode.env.clipboard.writeText(rec.content);
    vscode.window.setStatusBarMessage('Memory copied to the clipboard.', 3000);
    return rec.content;
  });
  reg(TREE_COMMANDS.openInSearch, async (arg) => {
    const m = memoryOf(arg);
    if (!m) return undefined;
    let q = m.title;
    if (q === undefined) {
      const rec = await engine.request('memory.get', { id: m.id });
      if (!rec) throw memoryGoneError();
      q = rec.title || firstLine(rec.content); // an untitled memory is searched by its first line
    }
    await vscode.commands.executeCommand('agentMemory.openSearch', q);
    return q;
  });
}
