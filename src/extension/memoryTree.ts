/**
 * The sidebar tree: memories grouped by type (counts from the engine), newest first, paged
 * ("Load more…"). Refreshes on the engine's memory.changed events.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../engine/client';
import type { MemorySummary } from '../engine/protocol';

export const TREE_VIEW_ID = 'agentMemory.memories';
export const PAGE_SIZE = 50;

const TYPE_ICONS: Record<string, string> = {
  general: 'note', solution: 'lightbulb', problem: 'issues', code_pattern: 'code', fix: 'tools', error: 'error',
  workflow: 'workflow', decision: 'law', fact: 'info', preference: 'heart', procedural: 'list-ordered',
  semantic: 'symbol-key', document_chunk: 'file-text',
};

export type TreeNode =
  | { kind: 'type'; type: string; count: number }
  | { kind: 'memory'; memory: MemorySummary }
  | { kind: 'more'; type: string; remaining: number }
  | { kind: 'message'; text: string };

export class MemoryTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** How many items of each type group are shown (grows by PAGE_SIZE with "Load more…"). */
  private readonly shown = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => { if (e.type === 'memory.changed') this.refreshSoon(); }),
      engine.onStateChange((s) => { if (s.state === 'ready' || s.state === 'failed') this.refresh(); }),
    );
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  refreshSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 150);
  }

  loadMore(type: string): void {
    this.shown.set(type, (this.shown.get(type) ?? PAGE_SIZE) + PAGE_SIZE);
    this.refresh();
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    try {
      if (!node) {
        const counts = await this.engine.request('memory.typeCounts', {});
        // Empty → no children, so the view's welcome content shows.
        return Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)).map(([type, count]) => ({ kind: 'type', type, count }));
      }
      if (node.kind !== 'type') return [];
      const want = this.shown.get(node.type) ?? PAGE_SIZE;
      const items: MemorySummary[] = [];
      let total = 0;
      // The engine pages by at most 100: fetch pages until `want` items are there.
      while (items.length < want) {
        const page = await this.engine.request('memory.list', { types: [node.type], offset: items.length, limit: Math.min(100, want - items.length) });
        total = page.total;
        items.push(...page.items);
        if (page.items.length === 0 || items.length >= total) break;
      }
      const out: TreeNode[] = items.map((memory) => ({ kind: 'memory', memory }));
      if (total > items.length) out.push({ kind: 'more', type: node.type, remaining: total - items.length });
      return out;
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list memories: ${(e as Error).message}` }];
    }
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'type': {
        const item = new vscode.TreeItem(node.type, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `type:${node.type}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.type] ?? 'note');
        item.contextValue = 'memoryType';
        return item;
      }
      case 'memory': {
        const m = node.memory;
        const label = m.title || firstLine(m.preview);
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.id = `memory:${m.id}`;
        item.description = [m.scope === 'global' ? 'global' : '', ...m.tags.map((t) => `#${t}`), m.expiresAt ? '' : '📌'].filter(Boolean).join(' ');
        const tip = new vscode.MarkdownString();
        tip.appendText(m.preview); // appendText escapes: memory text is never rendered as markdown
        tip.appendMarkdown(`\n\n---\n`);
        tip.appendText(`${m.type} · ${m.scope} · importance ${m.importance} · ${m.expiresAt ? `expires ${m.expiresAt}` : 'permanent'} · ${m.createdAt}`);
        item.tooltip = tip;
        item.contextValue = m.expiresAt ? 'memory' : 'memory.permanent';
        item.iconPath = new vscode.ThemeIcon(m.scope === 'global' ? 'globe' : 'circle-small-filled');
        item.command = { command: 'agentMemory.openMemory', title: 'Open Memory', arguments: [m.id] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(`Load more… (${node.remaining} more)`, vscode.TreeItemCollapsibleState.None);
        item.id = `more:${node.type}`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: 'agentMemory.treeLoadMore', title: 'Load More', arguments: [node.type] };
        return item;
      }
      case 'message':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
