/**
 * The graph webview panel (the search panel is searchPanel.ts). One panel; reopening reveals it.
 * All data goes to the webview as typed messages (webviewMessages.ts) and is rendered with textContent.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../engine/client';
import { isMessage, type FromGraphView, type GraphFilters, type ToGraphView } from './webviewMessages';
import { nonce, webviewShell } from './webviewHtml';
import { errorLine } from '../engine/errorText';

export const GRAPH_PANEL_TYPE = 'agentMemory.graph';

export interface PanelActions {
  open(id: string): Thenable<unknown>;
  /** Edit from a search result (absent: the panel offers no edit). */
  edit?(id: string): Thenable<unknown>;
  delete(id: string): Thenable<unknown>;
  promote(id: string): Thenable<unknown>;
}

/** What a panel is: its view type, title, webview script (dist/webview/<script>.js), static markup and own stylesheet. */
interface PanelSpec {
  viewType: string;
  title: string;
  script: string;
  body: string;
  extraStyle?: string;
}

function createPanel(context: vscode.ExtensionContext, spec: PanelSpec): vscode.WebviewPanel {
  const { viewType, title, script, body, extraStyle } = spec;
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview');
  const media = vscode.Uri.joinPath(context.extensionUri, 'media');
  const panel = vscode.window.createWebviewPanel(viewType, title, vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: false,
    localResourceRoots: [dist, media],
  });
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
  return panel;
}

export class GraphPanel {
  private static current: GraphPanel | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private centerId: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  static show(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions, centerId?: string): GraphPanel {
    if (GraphPanel.current) {
      GraphPanel.current.panel.reveal();
      GraphPanel.current.centerId = centerId;
      void GraphPanel.current.load();
      return GraphPanel.current;
    }
    // Static markup only; the type checkboxes, the legend and every entity/memory text are
    // built by webview/graph.ts with textContent. The graph itself is drawn on a canvas (cytoscape).
    const panel = createPanel(context, {
      viewType: GRAPH_PANEL_TYPE,
      title: 'Memory Graph',
      script: 'graph',
      body: `
<div class="bar graph-bar"><span class="codicon codicon-type-hierarchy" aria-hidden="true"></span>
<select id="mode" aria-label="What to draw"><option value="entities">Entities</option><option value="memories">Memories</option></select>
<input id="gsearch" type="search" placeholder="Filter by name…" aria-label="Filter entities by name">
<label class="mentions" for="minMentions">Min mentions <input id="minMentions" type="number" min="1" step="1" value="1"></label>
<button id="fit" title="Fit the graph to the panel"><span class="codicon codicon-screen-full" aria-hidden="true"></span>Fit</button>
<button id="refresh" title="Refresh"><span class="codicon codicon-refresh" aria-hidden="true"></span>Refresh</button>
<button id="all" title="Show the whole graph again"><span class="codicon codicon-home" aria-hidden="true"></span>All</button>
</div>
<fieldset id="types" class="types" aria-label="Entity types"></fieldset>
<div id="status" role="status"></div>
<div id="notice" class="notice" role="note" hidden></div>
<div class="graph-main"><div id="canvas" aria-label="Graph"></div>
<aside id="side" class="side" hidden><div class="side-head"><h2 id="sideTitle"></h2><button id="sideClose" title="Close"><span class="codicon codicon-close" aria-hidden="true"></span></button></div>
<div id="sideMeta" class="side-meta"></div><ul id="sideList" aria-label="Memories mentioning the entity"></ul></aside></div>`,
      extraStyle: 'graph',
    });
    GraphPanel.current = new GraphPanel(panel, engine, actions, centerId);
    return GraphPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly engine: EngineClient,
    private readonly actions: PanelActions,
    centerId?: string,
  ) {
    this.centerId = centerId;
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidDispose(() => this.dispose()),
      engine.onEvent((e) => {
        if (e.type !== 'memory.changed') return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.load(), 300);
      }),
    );
  }

  private post(m: ToGraphView): Thenable<boolean> {
    return this.panel.webview.postMessage(m);
  }

  private async receive(m: unknown): Promise<void> {
    if (!isMessage<FromGraphView>(m, ['ready', 'refresh', 'open', 'center', 'query', 'entity'])) return;
    switch (m.type) {
      case 'ready':
      case 'refresh':
        return this.load();
      case 'center':
        this.centerId = typeof m.id === 'string' ? m.id : undefined;
        return this.load();
      case 'query':
        this.filters = sanitizeFilters(m.filters);
        this.centerId = undefined;
        return this.load();
      case 'entity':
        if (typeof m.id === 'string') return this.entity(m.id);
        return;
      case 'open':
        if (typeof m.id === 'string') await this.actions.open(m.id);
    }
  }

  private filters: GraphFilters = { mode: 'entities', entityTypes: [], minMentions: 1, search: '' };

  private async entity(id: string): Promise<void> {
    try {
      const r = await this.engine.request('graph.entityMemories', { entityId: id });
      await this.post({ type: 'entityMemories', entity: r.entity, memories: r.memories });
    } catch (e) {
      await this.post({ type: 'error', message: `Cannot load the entity's memories: ${errorLine(e)}` });
    }
  }

  private async load(): Promise<void> {
    try {
      const f = this.filters;
      const data = await this.engine.request('graph.query', {
        mode: f.mode,
        limit: f.mode === 'entities' ? 2000 : 150,
        ...(f.entityTypes.length ? { entityTypes: f.entityTypes } : {}),
        ...(f.minMentions > 1 ? { minMentions: f.minMentions } : {}),
        ...(f.search ? { search: f.search } : {}),
        ...(this.centerId ? { centerId: this.centerId } : {}),
      });
      await this.post({ type: 'graph', data });
    } catch (e) {
      await this.post({ type: 'error', message: `Cannot load the graph: ${errorLine(e)}` });
    }
  }

  dispose(): void {
    GraphPanel.current = undefined;
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
  }
}

/** The webview is untrusted input: keep only well-typed filter values. */
function sanitizeFilters(f: unknown): GraphFilters {
  const o = (f && typeof f === 'object' ? f : {}) as Record<string, unknown>;
  return {
    mode: o.mode === 'memories' ? 'memories' : 'entities',
    entityTypes: Array.isArray(o.entityTypes) ? o.entityTypes.filter((t): t is string => typeof t === 'string').slice(0, 100) : [],
    minMentions: typeof o.minMentions === 'number' && Number.isFinite(o.minMentions) ? Math.max(1, Math.floor(o.minMentions)) : 1,
    search: typeof o.search === 'string' ? o.search.slice(0, 200) : '',
  };
}
