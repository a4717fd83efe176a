/**
 * The graph panel: the knowledge graph (entities and relations) or the memory view (memories
 * linked by relationships, shared entities and tags, similarity suggestions and merges), drawn
 * by webview/graph.ts. One panel; reopening reveals it. After a window reload VS Code restores
 * it through the serializer below, and the webview brings back its own mode and filters
 * (getState/setState), so the panel reopens as it was left.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { errorLine } from '../../present/errorText';
import { createPanel, fillPanel, type PanelActions, type PanelSpec } from '../common/panels';
import { isMessage, type FromGraphView, type GraphEmptyAction, type GraphFilters, type ToGraphView } from '../../present/webviewMessages';

export const GRAPH_PANEL_TYPE = 'agentMemory.graph';

/** Where the empty state's buttons lead (command ids; the settings query finds the pipeline's settings). */
const EMPTY_ACTIONS: Record<GraphEmptyAction, () => Thenable<unknown>> = {
  addMemory: () => vscode.commands.executeCommand('agentMemory.addMemory'),
  pipelineSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.pipeline'),
};

// Static markup only; the type checkboxes, the legend and every entity/memory text are built by
// webview/graph.ts with textContent. The graph itself is drawn on a canvas (cytoscape).
const GRAPH_PANEL: PanelSpec = {
  viewType: GRAPH_PANEL_TYPE,
  title: 'Memory Graph',
  script: 'graph',
  extraStyle: 'graph',
  body: `
<div class="bar graph-bar" role="toolbar" aria-label="Graph">
<span class="codicon codicon-type-hierarchy" aria-hidden="true"></span>
<label class="field" for="mode">Show <select id="mode"><option value="entities">Entities</option><option value="memories">Memories</option></select></label>
<input id="gsearch" type="search" placeholder="Filter by name…" aria-label="Filter by name">
<label class="mentions" id="mentionsBox" for="minMentions">Min mentions <input id="minMentions" type="number" min="1" step="1" value="1"></label>
<button id="fit" title="Fit the whole graph in the panel"><span class="codicon codicon-screen-full" aria-hidden="true"></span>Fit</button>
<button id="refresh" title="Load the graph again"><span class="codicon codicon-refresh" aria-hidden="true"></span>Refresh</button>
<button id="all" title="Clear the filters and show the whole graph"><span class="codicon codicon-clear-all" aria-hidden="true"></span>Reset</button>
</div>
<fieldset id="types" class="types" aria-label="Entity types"></fieldset>
<div id="status" role="status" aria-live="polite"></div>
<div id="notice" class="notice" role="note" hidden></div>
<div class="graph-main">
<div class="canvas-wrap">
<div id="canvas" tabindex="0" role="application" aria-roledescription="graph" aria-label="Graph: Tab to focus, arrow keys move between nodes, Enter opens, Escape clears" aria-describedby="focusInfo"></div>
<div id="legend" class="legend" role="group" aria-label="Legend"></div>
<div id="empty" class="empty-state" hidden><span class="codicon codicon-type-hierarchy" aria-hidden="true"></span>
<h2 id="emptyTitle">Nothing to draw yet</h2><p id="emptyText"></p>
<div class="empty-actions"><button id="emptyAdd"><span class="codicon codicon-add" aria-hidden="true"></span>Add Memory…</button>
<button id="emptyPipeline" class="secondary"><span class="codicon codicon-settings-gear" aria-hidden="true"></span>Pipeline Settings…</button></div></div>
<div id="tip" class="tip" role="tooltip" hidden></div>
</div>
<aside id="side" class="side" hidden aria-labelledby="sideTitle"><div class="side-head"><h2 id="sideTitle"></h2><button id="sideClose" title="Close" aria-label="Close"><span class="codicon codicon-close" aria-hidden="true"></span></button></div>
<div id="sideMeta" class="side-meta"></div><ul id="sideList" aria-label="Memories mentioning the entity"></ul></aside></div>
<div id="focusInfo" class="sr-only" aria-live="polite"></div>`,
};

export class GraphPanel {
  private static current: GraphPanel | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private centerId: string | undefined;
  /** The centre asked for when the panel was opened on a memory: taken by the webview's first query. */
  private openedOn: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private filters: GraphFilters = { mode: 'entities', entityTypes: [], minMentions: 1, search: '' };

  static show(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions, centerId?: string): GraphPanel {
    if (GraphPanel.current) {
      GraphPanel.current.panel.reveal();
      GraphPanel.current.centerId = centerId;
      void GraphPanel.current.load();
      return GraphPanel.current;
    }
    GraphPanel.current = new GraphPanel(createPanel(context, GRAPH_PANEL), engine, actions, centerId);
    return GraphPanel.current;
  }

  /** Restores the panel after a window reload (activation event onWebviewPanel:agentMemory.graph). */
  static registerSerializer(context: vscode.ExtensionContext, engine: EngineClient, actions: PanelActions): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(GRAPH_PANEL_TYPE, {
      deserializeWebviewPanel: (panel: vscode.WebviewPanel) => {
        GraphPanel.current?.dispose();
        fillPanel(context, panel, GRAPH_PANEL);
        // The webview asks for its saved mode and filters itself (its first 'query' message).
        GraphPanel.current = new GraphPanel(panel, engine, actions);
        return Promise.resolve();
      },
    });
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly engine: EngineClient,
    private readonly actions: PanelActions,
    centerId?: string,
  ) {
    this.centerId = centerId;
    this.openedOn = centerId;
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
    if (!isMessage<FromGraphView>(m, ['ready', 'refresh', 'open', 'center', 'query', 'entity', 'action'])) return;
    switch (m.type) {
      case 'ready':
      case 'refresh':
        return this.load();
      case 'center':
        this.centerId = typeof m.id === 'string' ? m.id : undefined;
        return this.load();
      case 'query':
        this.filters = sanitizeFilters(m.filters);
        // A new filter drops the centre, unless the webview restores one or the panel was just opened on a memory.
        this.centerId = this.openedOn ?? (typeof m.centerId === 'string' ? m.centerId : undefined);
        this.openedOn = undefined;
        return this.load();
      case 'entity':
        if (typeof m.id === 'string') return this.entity(m.id);
        return;
      default:
        return this.act(m);
    }
  }

  /** The webview's buttons: open a memory, or an empty-state action. */
  private async act(m: FromGraphView): Promise<void> {
    if (m.type === 'open' && typeof m.id === 'string') await this.actions.open(m.id);
    if (m.type === 'action' && Object.hasOwn(EMPTY_ACTIONS, m.action)) await EMPTY_ACTIONS[m.action]();
  }

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
      const centerId = this.centerId;
      const data = await this.engine.request('graph.query', {
        mode: f.mode,
        limit: f.mode === 'entities' ? 2000 : 150,
        ...(f.entityTypes.length ? { entityTypes: f.entityTypes } : {}),
        ...(f.minMentions > 1 ? { minMentions: f.minMentions } : {}),
        ...(f.search && f.mode === 'entities' ? { search: f.search } : {}),
        ...(centerId ? { centerId } : {}),
      });
      await this.post({ type: 'graph', data, ...(centerId ? { centerId } : {}) });
    } catch (e) {
      await this.post({ type: 'error', message: `Cannot load the graph: ${errorLine(e)}` });
    }
  }

  dispose(): void {
    if (GraphPanel.current === this) GraphPanel.current = undefined;
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
  }
}

/** The webview is untrusted input: keep only well-typed filter values. */
export function sanitizeFilters(f: unknown): GraphFilters {
  const o = (f && typeof f === 'object' ? f : {}) as Record<string, unknown>;
  return {
    mode: o.mode === 'memories' ? 'memories' : 'entities',
    entityTypes: Array.isArray(o.entityTypes) ? o.entityTypes.filter((t): t is string => typeof t === 'string').slice(0, 100) : [],
    minMentions: typeof o.minMentions === 'number' && Number.isFinite(o.minMentions) ? Math.max(1, Math.floor(o.minMentions)) : 1,
    search: typeof o.search === 'string' ? o.search.slice(0, 200) : '',
  };
}
