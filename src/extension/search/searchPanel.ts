/**
 * The search panel (one; reopening reveals it). All data goes to the webview (webview/search.ts)
 * as typed messages and is rendered as text nodes. An empty query shows the recent memories.
 * Each result carries a `data-vscode-context`, so its actions (Open, Copy, Edit, Make
 * Permanent, Delete) are also in the webview's context menu (package.json `webview/context`).
 * The panel comes back after a window reload with its last query and filters: a
 * WebviewPanelSerializer revives it from the state the webview saves with setState.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { errorLine } from '../../present/errorText';
import { MEMORY_TYPES } from '../../core/memory/types';
import { fillPanel, type PanelActions, type PanelSpec } from '../common/panels';
import { recentView, resultView, sanitizeSearchFilters, searchParams } from './searchPanelModel';
import { isMessage, type FromSearchView, type SearchFiltersView, type ToSearchView } from '../../present/webviewMessages';
import type { CommandId } from '../commandIds';

export const SEARCH_PANEL_TYPE = 'agentMemory.search';

/** The context-menu commands of a result (package.json contributes them to `webview/context`). */
export const SEARCH_RESULT_COMMANDS = {
  open: 'agentMemory.searchResult.open',
  copy: 'agentMemory.searchResult.copy',
  edit: 'agentMemory.searchResult.edit',
  promote: 'agentMemory.searchResult.promote',
  delete: 'agentMemory.searchResult.delete',
} as const satisfies Record<string, CommandId>;

/** Results asked per query, and recent memories shown for an empty one. */
const SEARCH_LIMIT = 50;
const RECENT_LIMIT = 20;

const BODY = `
<div class="bar"><span class="codicon codicon-search" aria-hidden="true"></span>
<input id="query" type="search" placeholder="Search memories… ( / )" aria-label="Search memories" aria-controls="results" aria-keyshortcuts="/"></div>
<div class="filters" role="group" aria-label="Filters">
<details id="typesBox" class="types-box"><summary id="typesSummary">All types</summary><div id="types" class="type-list"></div></details>
<label>Scope <select id="scope" aria-label="Scope"><option value="">All</option><option value="project">Project</option><option value="global">Global</option></select></label>
<label>Tags <input id="tags" type="text" placeholder="tag, tag" aria-label="Tags (comma-separated, all must match)"></label>
<label>After <input id="after" type="date" aria-label="Created on or after"></label>
<label>Before <input id="before" type="date" aria-label="Created on or before"></label>
<button id="clearFilters" title="Clear the filters"><span class="codicon codicon-clear-all" aria-hidden="true"></span>Clear</button>
</div>
<div id="status" role="status" aria-live="polite"></div>
<ul id="results" aria-label="Results"></ul>
<div class="keys" aria-hidden="true">↑/↓ move · Enter open · Del remove · Shift+F10 more actions · / search · Esc clear</div>`;

/** The panel's spec for panels.ts fillPanel: strict CSP with a nonce, the bundle, codicons, webview.css and search.css. */
const SEARCH_PANEL: PanelSpec = { viewType: SEARCH_PANEL_TYPE, title: 'Memory Search', script: 'search', body: BODY, extraStyle: 'search' };

export class SearchPanel {
  private static current: SearchPanel | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private lastQuery: string | undefined;
  private filters: SearchFiltersView = {};

  static show(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions, query?: string): SearchPanel {
    if (SearchPanel.current) {
      SearchPanel.current.panel.reveal();
      if (query !== undefined) void SearchPanel.current.post({ type: 'init', memoryTypes: [...MEMORY_TYPES], query });
      return SearchPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(SEARCH_PANEL_TYPE, 'Memory Search', vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: false,
    });
    return SearchPanel.adopt(context, panel, engine, actions, query);
  }

  /**
   * A panel VS Code restored after a reload, with the state the webview last saved (setState):
   * its query goes back in the init message, the webview restores its filters from getState.
   */
  static revive(
    context: vscode.ExtensionContext,
    panel: vscode.WebviewPanel,
    deps: { engine: EngineClient; actions: PanelActions },
    state: unknown,
  ): SearchPanel {
    SearchPanel.current?.dispose();
    const query = state && typeof state === 'object' ? (state as { query?: unknown }).query : undefined;
    return SearchPanel.adopt(context, panel, deps.engine, deps.actions, typeof query === 'string' ? query : undefined);
  }

  private static adopt(
    context: vscode.ExtensionContext,
    panel: vscode.WebviewPanel,
    engine: EngineClient,
    actions: PanelActions,
    query: string | undefined,
  ): SearchPanel {
    // Listen before the HTML loads: the webview's 'ready' must not arrive before the listener.
    SearchPanel.current = new SearchPanel(panel, engine, actions, query);
    fillPanel(context, panel, SEARCH_PANEL);
    return SearchPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly engine: EngineClient,
    private readonly actions: PanelActions,
    private readonly initialQuery?: string,
  ) {
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidDispose(() => this.dispose()),
      engine.onEvent((e) => {
        if (e.type === 'memory.changed' && this.lastQuery !== undefined) void this.search(this.lastQuery);
      }),
    );
  }

  private post(m: ToSearchView): Thenable<boolean> {
    return this.panel.webview.postMessage(m);
  }

  private async receive(m: unknown): Promise<void> {
    if (!isMessage<FromSearchView>(m, ['ready', 'search', 'open', 'copy', 'edit', 'delete', 'promote'])) return;
    switch (m.type) {
      case 'ready':
        return void this.post({
          type: 'init',
          memoryTypes: [...MEMORY_TYPES],
          ...(this.initialQuery !== undefined ? { query: this.initialQuery } : {}),
        });
      case 'search':
        if (typeof m.query === 'string') return this.search(m.query, sanitizeSearchFilters(m.filters, m.memoryType));
        return;
      case 'copy':
        if (typeof m.id === 'string') await copyMemory(this.engine, m.id);
        return;
      default:
        if (typeof m.id !== 'string') return;
        await this.actions[m.type]?.(m.id);
    }
  }

  private async search(query: string, filters = this.filters): Promise<void> {
    this.lastQuery = query;
    this.filters = filters;
    try {
      if (!query.trim()) return await this.recent(query, filters);
      // Display only: typing in the search box is not a deliberate use of a memory (docs/lifecycle.md).
      const r = await this.engine.request('search', { ...searchParams(query, filters, SEARCH_LIMIT), recordAccess: false });
      await this.post({ type: 'results', query, legsUsed: r.legsUsed, tookMs: r.tookMs, results: r.hits.map(resultView) });
    } catch (e) {
      await this.post({ type: 'error', message: `Search failed: ${errorLine(e)}` });
    }
  }

  /** The newest memories (the filters' types, scope and tags apply). */
  private async recent(query: string, f: SearchFiltersView): Promise<void> {
    const t0 = Date.now();
    const r = await this.engine.request('memory.list', {
      limit: RECENT_LIMIT,
      ...(f.types ? { types: f.types } : {}),
      ...(f.scope ? { scope: f.scope } : {}),
      ...(f.tags ? { tags: f.tags } : {}),
    });
    await this.post({ type: 'results', query, recent: true, legsUsed: [], tookMs: Date.now() - t0, results: r.items.map(recentView) });
  }

  dispose(): void {
    SearchPanel.current = undefined;
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
  }
}

async function copyMemory(engine: EngineClient, id: string): Promise<void> {
  const m = await engine.request('memory.get', { id });
  if (!m) return void vscode.window.showWarningMessage('That memory no longer exists.');
  await vscode.env.clipboard.writeText(m.content);
  void vscode.window.setStatusBarMessage('Memory text copied', 3000);
}

/** The memory id a context-menu command was given (the result's data-vscode-context). */
function contextId(arg: unknown): string | undefined {
  const id = arg && typeof arg === 'object' ? (arg as { memoryId?: unknown }).memoryId : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

/** The panel's serializer (restore after reload) and its results' context-menu commands. */
export function registerSearchPanel(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions): vscode.Disposable[] {
  const on = (command: string, run: (id: string) => Thenable<unknown> | Promise<unknown> | undefined) =>
    vscode.commands.registerCommand(command, (arg: unknown) => {
      const id = contextId(arg);
      return id ? run(id) : undefined;
    });
  return [
    vscode.window.registerWebviewPanelSerializer(SEARCH_PANEL_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => void SearchPanel.revive(context, panel, { engine, actions }, state),
    }),
    on(SEARCH_RESULT_COMMANDS.open, (id) => actions.open(id)),
    on(SEARCH_RESULT_COMMANDS.copy, (id) => copyMemory(engine, id)),
    on(SEARCH_RESULT_COMMANDS.edit, (id) => actions.edit?.(id)),
    on(SEARCH_RESULT_COMMANDS.promote, (id) => actions.promote(id)),
    on(SEARCH_RESULT_COMMANDS.delete, (id) => actions.delete(id)),
  ];
}
