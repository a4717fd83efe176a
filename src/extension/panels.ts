/**
 * The webview panels' common part (createPanel, fillPanel) and the search panel; the graph panel
 * is graphPanel.ts. One panel of each kind; reopening reveals it. All data goes to the webview
 * as typed messages (webviewMessages.ts) and is rendered with textContent.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../engine/client';
import { MEMORY_TYPES } from '../core/memory/types';
import { isMessage, type FromSearchView, type ToSearchView } from './webviewMessages';
import { nonce, webviewShell } from './webviewHtml';
import { resultView, sanitizeSearchFilters, searchParams } from './searchPanelModel';
import type { SearchFiltersView } from './webviewMessages';
import { errorLine } from '../engine/errorText';

export const SEARCH_PANEL_TYPE = 'agentMemory.search';

export interface PanelActions {
  open(id: string): Thenable<unknown>;
  /** Edit from a search result (absent: the panel offers no edit). */
  edit?(id: string): Thenable<unknown>;
  delete(id: string): Thenable<unknown>;
  promote(id: string): Thenable<unknown>;
}

/** What a panel is: its view type, title, webview script (dist/webview/<script>.js), static markup and own stylesheet. */
export interface PanelSpec {
  viewType: string;
  title: string;
  script: string;
  body: string;
  extraStyle?: string;
}

function webviewRoots(context: vscode.ExtensionContext): { dist: vscode.Uri; media: vscode.Uri } {
  return { dist: vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview'), media: vscode.Uri.joinPath(context.extensionUri, 'media') };
}

export function createPanel(context: vscode.ExtensionContext, spec: PanelSpec): vscode.WebviewPanel {
  const { dist, media } = webviewRoots(context);
  const panel = vscode.window.createWebviewPanel(spec.viewType, spec.title, vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: false,
    localResourceRoots: [dist, media],
  });
  fillPanel(context, panel, spec);
  return panel;
}

/**
 * Gives a panel its options, icon and HTML: a new one (createPanel) or one VS Code restores
 * after a window reload (a WebviewPanelSerializer hands it over empty).
 */
export function fillPanel(context: vscode.ExtensionContext, panel: vscode.WebviewPanel, spec: PanelSpec): void {
  const { title, script, body, extraStyle } = spec;
  const { dist, media } = webviewRoots(context);
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
  panel.iconPath = vscode.Uri.joinPath(media, 'memory.svg');
  const w = panel.webview;
  const n = nonce();
  // A panel's own stylesheet (media/<name>.css), loaded like webview.css: local, with the nonce.
  const extra = extraStyle
    ? `<link rel="stylesheet" href="${w.asWebviewUri(vscode.Uri.joinPath(media, `${extraStyle}.css`)).toString()}" nonce="${n}">\n`
    : '';
  w.html = webviewShell({
    title,
    cspSource: w.cspSource,
    nonce: n,
    scriptUri: w.asWebviewUri(vscode.Uri.joinPath(dist, `${script}.js`)).toString(),
    styleUri: w.asWebviewUri(vscode.Uri.joinPath(media, 'webview.css')).toString(),
    codiconUri: w.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
    body: extra + body,
  });
}

export class SearchPanel {
  private static current: SearchPanel | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private lastQuery: string | undefined;

  static show(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions, query?: string): SearchPanel {
    if (SearchPanel.current) {
      SearchPanel.current.panel.reveal();
      if (query !== undefined) void SearchPanel.current.post({ type: 'init', memoryTypes: [...MEMORY_TYPES], query });
      return SearchPanel.current;
    }
    // Static markup only: the type options and every result are built by webview/search.ts.
    const panel = createPanel(context, {
      viewType: SEARCH_PANEL_TYPE,
      title: 'Memory Search',
      script: 'search',
      body: `
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
<ul id="results" role="listbox" aria-label="Results"></ul>
<div class="keys" aria-hidden="true">↑/↓ move · Enter open · Delete delete · / search · Esc clear</div>`,
    });
    SearchPanel.current = new SearchPanel(panel, engine, actions, query);
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
        if (e.type === 'memory.changed' && this.lastQuery) void this.search(this.lastQuery);
      }),
    );
  }

  private post(m: ToSearchView): Thenable<boolean> {
    return this.panel.webview.postMessage(m);
  }

  private async receive(m: unknown): Promise<void> {
    if (!isMessage<FromSearchView>(m, ['ready', 'search', 'open', 'edit', 'delete', 'promote'])) return;
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
      default:
        if (typeof m.id !== 'string') return;
        await this.actions[m.type]?.(m.id);
    }
  }

  private filters: SearchFiltersView = {};

  private async search(query: string, filters = this.filters): Promise<void> {
    this.lastQuery = query;
    this.filters = filters;
    try {
      const r = await this.engine.request('search', searchParams(query, filters, 50));
      await this.post({ type: 'results', query, legsUsed: r.legsUsed, tookMs: r.tookMs, results: r.hits.map(resultView) });
    } catch (e) {
      await this.post({ type: 'error', message: `Search failed: ${errorLine(e)}` });
    }
  }

  dispose(): void {
    SearchPanel.current = undefined;
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
  }
}
