/**
 * "Recently Deleted and Expired" (docs/lifecycle.md "Expired and deleted"): a tree view in the
 * Agent Memory container and a palette command listing the memories that were deleted or
 * expired, with when and why; each can be opened (read-only) or restored until the retention
 * sweep purges it. Every expiry sweep that expired something is logged with where to restore.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { MemoryRecord, RemovedMemory } from '../../engine/protocol';
import { errorLine } from '../../present/errorText';
import { describeAgo, describeExpiry, humanDate } from '../../core/text/timeWords';
import { truncateLine } from '../../core/text/truncate';
import { commandRegistrar } from '../common/commandTable';
import { Debounced } from '../common/debounce';
import { RowsWatch } from '../common/rowsWatch';
import type { Logger } from '../host/log';
import { memoryName } from '../memories/memoryFsNames';
import { typeHeading } from '../memories/memoryTree';
import { rememberUndo } from './undoLast';
import { LABEL_GRAPHEMES } from '../../present/memoryRowText';
import { restoredMessage } from './lifetimeMessages';
import { isDeactivating } from '../host/shutdown';

const KEEP_PERMANENTLY = 'Keep Permanently';

export const REMOVED_VIEW_ID = 'agentMemory.removed';
export const REMOVED_SCHEME = 'agent-memory-removed';
const PAGE = 50;

export const REMOVED_COMMANDS = {
  show: 'agentMemory.showRemoved',
  restore: 'agentMemory.restoreMemory',
  open: 'agentMemory.openRemovedMemory',
  refresh: 'agentMemory.refreshRemoved',
  loadMore: 'agentMemory.removedLoadMore',
} as const;

export type RemovedNode =
  { kind: 'removed'; item: RemovedMemory } | { kind: 'more'; remaining: number } | { kind: 'message'; text: string };

/** The memory's title, else its first line (grapheme-safe); the row shows it cut like the memory tree's rows. */
const titleOf = (x: RemovedMemory) => x.memory.title || truncateLine(x.memory.preview, 80) || 'Memory';

/** "expired 2 hours ago", "deleted yesterday". */
export function whenAndWhy(x: RemovedMemory, now = new Date()): string {
  return `${x.reason} ${describeAgo(x.removedAt, now)}`;
}

/** The tooltip: why it went, by whom, and until when it can be restored. */
export function removedDetail(x: RemovedMemory, now = new Date()): string {
  const by =
    x.reason === 'expired'
      ? 'Its lifetime ended (it was short-term).'
      : `Deleted by ${x.removedBy ?? 'someone'}${x.detail ? `: ${x.detail}` : ''}.`;
  return `${by} ${whenAndWhy(x, now).replace(/^./, (c) => c.toUpperCase())} (${humanDate(x.removedAt)}). Restorable until ${humanDate(x.purgeAt, { time: false })}.`;
}

export class RemovedTreeProvider implements vscode.TreeDataProvider<RemovedNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RemovedNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** A memory change that adds or removes no row here leaves the tree alone (rowsWatch.ts says why). */
  readonly rows = new RowsWatch(
    () => this.fetchRows(),
    () => this.refresh(),
  );
  private readonly refreshLater = new Debounced(() => this.rows.check(), 200);
  private readonly subs: vscode.Disposable[] = [];
  private shown = PAGE;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'memory.changed') this.refreshLater.trigger();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        if (s.state === 'ready') void this.rows.check(); // a takeover most often changes no row
      }),
    );
  }

  refresh(): void {
    if (!isDeactivating()) this.changed.fire(undefined); // see shutdown.ts
  }

  loadMore(): void {
    this.shown += PAGE;
    this.refresh();
  }

  async getChildren(node?: RemovedNode): Promise<RemovedNode[]> {
    if (node) return [];
    try {
      const rows = await this.rows.read();
      const out: RemovedNode[] = rows.items.map((item) => ({ kind: 'removed', item }));
      if (rows.total > rows.items.length) out.push({ kind: 'more', remaining: rows.total - rows.items.length });
      return out; // empty: the view's welcome text explains what appears here
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list removed memories: ${errorLine(e)}` }];
    }
  }

  /** The removed memories shown (the first `shown` of them) and how many there are. */
  private async fetchRows(): Promise<{ items: RemovedMemory[]; total: number }> {
    const items: RemovedMemory[] = [];
    let total = 0;
    while (items.length < this.shown) {
      const page = await this.engine.request('memory.listRemoved', {
        offset: items.length,
        limit: Math.min(100, this.shown - items.length),
      });
      total = page.total;
      items.push(...page.items);
      if (!page.items.length || items.length >= total) break;
    }
    return { items, total };
  }

  getTreeItem(node: RemovedNode): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    if (node.kind === 'more') {
      const item = new vscode.TreeItem(`Load more… (${node.remaining} more)`, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: REMOVED_COMMANDS.loadMore, title: 'Load More' };
      return item;
    }
    const x = node.item;
    // Cut so that "expired 2 hours ago" shows at the default width; tooltip and screen reader get the whole title.
    const item = new vscode.TreeItem(truncateLine(titleOf(x), LABEL_GRAPHEMES), vscode.TreeItemCollapsibleState.None);
    item.id = `removed:${x.memory.id}`;
    item.description = whenAndWhy(x);
    item.accessibilityInformation = { label: `${titleOf(x)}, ${item.description}` };
    const tip = new vscode.MarkdownString();
    tip.appendText(`${titleOf(x)}\n\n`);
    tip.appendText(removedDetail(x)); // appendText escapes: memory text is never rendered as markdown
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(x.reason === 'expired' ? 'history' : 'trash');
    item.contextValue = `removedMemory.${x.reason}`;
    item.command = { command: REMOVED_COMMANDS.open, title: 'Open', arguments: [x.memory.id] };
    return item;
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/** A removed memory as a read-only document: its text, then when and why it went. */
export function renderRemoved(m: MemoryRecord): string {
  const why =
    m.retentionStatus === 'expired' ? 'expired' : `deleted by ${m.deletedBy ?? 'someone'}${m.deleteReason ? ` (${m.deleteReason})` : ''}`;
  return [
    // A heading: the whole title (a first sentence without its full stop), else the first words.
    `# ${m.title.trim().replace(/\.+$/, '') || memoryName('', m.content)}`,
    '',
    m.deletedAt
      ? `> This memory was ${why} ${describeAgo(m.deletedAt)}. Restore it from "Recently Deleted and Expired" or "Agent Memory: Restore Memory".`
      : `> This memory was restored: it is live again (${describeExpiry(m.expiresAt) ?? 'permanent'}).`,
    '',
    m.content,
    '',
    '---',
    `- ${typeHeading(m.type)} · ${m.scope === 'global' ? 'global' : 'project'} · created ${humanDate(m.createdAt)}`,
    `- id ${m.id} (for \`agent-memory restore\`)`,
  ].join('\n');
}

class RemovedDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly engine: EngineClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    // The id is in the query (`/<name> (removed).md?id=<id>`), so the tab and breadcrumb show the name.
    const id = new URLSearchParams(uri.query).get('id') ?? '';
    try {
      const m = await this.engine.request('memory.get', { id, includeDeleted: true });
      return m ? renderRemoved(m) : `Memory ${id} no longer exists: the retention sweep purged it.\n`;
    } catch (e) {
      return `Cannot load memory ${id}: ${errorLine(e)}\n`;
    }
  }
}

function idOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as RemovedNode | { id?: unknown } | undefined;
  if (n && typeof n === 'object' && 'kind' in n && n.kind === 'removed') return n.item.memory.id;
  if (n && typeof n === 'object' && 'id' in n && typeof n.id === 'string') return n.id;
  return undefined;
}

/** The quick pick of removed memories (the palette command); the chosen one, or undefined. */
async function pickRemoved(engine: EngineClient, placeHolder: string): Promise<RemovedMemory | undefined> {
  const page = await engine.request('memory.listRemoved', { limit: 100 });
  if (!page.items.length) {
    void vscode.window.showInformationMessage('Nothing was deleted or expired recently.');
    return undefined;
  }
  const now = new Date();
  const pick = await vscode.window.showQuickPick(
    page.items.map((x) => ({
      label: `$(${x.reason === 'expired' ? 'history' : 'trash'}) ${titleOf(x)}`,
      description: whenAndWhy(x, now),
      detail: removedDetail(x, now),
      x,
    })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.x;
}

export function registerRemovedView(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): RemovedTreeProvider {
  const tree = new RemovedTreeProvider(engine);
  context.subscriptions.push(
    tree,
    vscode.window.createTreeView(REMOVED_VIEW_ID, { treeDataProvider: tree }),
    vscode.workspace.registerTextDocumentContentProvider(REMOVED_SCHEME, new RemovedDocuments(engine)),
    engine.onEvent((e) => {
      if (e.type !== 'memory.changed' || e.kind !== 'expired' || !e.ids.length) return;
      const n = e.ids.length;
      log.info(
        `Expired ${n} short-term ${n === 1 ? 'memory' : 'memories'} (${e.store} store); restore ${n === 1 ? 'it' : 'them'} from "Recently Deleted and Expired" or "Agent Memory: Show Recently Deleted and Expired…".`,
      );
    }),
  );
  const run = commandRegistrar(context, log);

  const restore = async (arg?: unknown) => {
    const id = idOf(arg) ?? (await pickRemoved(engine, 'Restore which memory?'))?.memory.id;
    if (!id) return undefined;
    const before = await engine.request('memory.get', { id, includeDeleted: true });
    const m = await engine.request('memory.restore', { id });
    const name = truncateLine(m.title || m.content, 60);
    rememberUndo({ label: `restore of “${name}”`, undo: () => engine.request('memory.delete', { id, reason: 'restore undone' }) });
    // An expired memory comes back for a fresh lifetime (docs/lifecycle.md): say how long, offer to keep it.
    const wasExpired = before?.retentionStatus === 'expired';
    const actions = wasExpired && m.expiresAt ? [KEEP_PERMANENTLY, 'Open'] : ['Open'];
    void vscode.window.showInformationMessage(restoredMessage(m, wasExpired), ...actions).then(async (pick) => {
      if (pick === KEEP_PERMANENTLY) await vscode.commands.executeCommand('agentMemory.promoteMemory', m.id);
      if (pick === 'Open') await vscode.commands.executeCommand('agentMemory.openMemory', m.id);
    });
    return m;
  };
  const open = async (arg?: unknown) => {
    const id = idOf(arg) ?? (await pickRemoved(engine, 'Open which memory?'))?.memory.id;
    if (!id) return undefined;
    const m = await engine.request('memory.get', { id, includeDeleted: true });
    const name = m ? memoryName(m.title, m.content) : 'Memory';
    const doc = await vscode.workspace.openTextDocument(
      vscode.Uri.from({ scheme: REMOVED_SCHEME, path: `/${name} (removed).md`, query: new URLSearchParams({ id }).toString() }),
    );
    await vscode.window.showTextDocument(doc, { preview: true });
    return id;
  };

  run(REMOVED_COMMANDS.restore, 'restore memory', restore);
  run(REMOVED_COMMANDS.open, 'open removed memory', open);
  run(REMOVED_COMMANDS.refresh, 'refresh', () => Promise.resolve(tree.refresh()));
  run(REMOVED_COMMANDS.loadMore, 'load more', () => Promise.resolve(tree.loadMore()));
  run(REMOVED_COMMANDS.show, 'show recently deleted and expired', async () => {
    const x = await pickRemoved(engine, 'Recently deleted and expired memories — pick one to restore or open it');
    if (!x) return undefined;
    const action = await vscode.window.showQuickPick(
      [
        { label: '$(discard) Restore', detail: 'Bring it back into memory', id: 'restore' as const },
        { label: '$(go-to-file) Open', detail: 'Read it without restoring', id: 'open' as const },
      ],
      { placeHolder: titleOf(x) },
    );
    if (action?.id === 'restore') return restore(x.memory.id);
    if (action?.id === 'open') return open(x.memory.id);
    return undefined;
  });
  return tree;
}
