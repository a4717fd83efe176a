/**
 * The graph panel (browser code). Draws the knowledge graph (entities + relations) or the memory
 * view (memories linked by relationships, shared entities and tags, similarity suggestions and
 * merges) with cytoscape on a canvas: force layout without overlapping labels (lib/graphLayout.ts),
 * zoom and pan, Fit, filters, a legend, hover tooltips with the full text, keyboard navigation
 * (lib/graphKeys.ts), an empty state that says what fills the graph. Its mode, filters and centre
 * are kept with setState, so a reloaded window restores the panel as it was.
 *
 * Safety: names and memory text reach the DOM only through textContent (lib/dom.ts); on the
 * canvas they are painted as text, never parsed. No inline styles: cytoscape's colours come
 * from the --vscode-* variables read at run time (lib/graphTheme.ts).
 */
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import type { FromGraphView, GraphViewState, ToGraphView } from '../src/present/webviewMessages';
import type { EntityGraphData, EntityMemory, EntityNode, GraphData, GraphView } from '../src/engine/protocol';
import { byId, clear, h } from './lib/dom';
import { bindKeyboard } from './lib/graphKeys';
import { oneLine, shortLabel, typeLabel } from './lib/graphLabels';
import { LARGE_GRAPH, layoutFor, removeOverlaps } from './lib/graphLayout';
import { renderLegend } from './lib/graphLegend';
import { fitDrawing } from './lib/graphFit';
import { graphStyles, memoryEdgeKind, type EdgeKind } from './lib/graphStyle';
import { onThemeChange, readTheme, type GraphTheme } from './lib/graphTheme';
import { channel } from './lib/vscodeApi';

const vscode = channel<ToGraphView, FromGraphView>();
const el = {
  canvas: byId<HTMLElement>('canvas'),
  status: byId<HTMLElement>('status'),
  notice: byId<HTMLElement>('notice'),
  types: byId<HTMLFieldSetElement>('types'),
  mode: byId<HTMLSelectElement>('mode'),
  search: byId<HTMLInputElement>('gsearch'),
  mentionsBox: byId<HTMLElement>('mentionsBox'),
  minMentions: byId<HTMLInputElement>('minMentions'),
  legend: byId<HTMLElement>('legend'),
  empty: byId<HTMLElement>('empty'),
  emptyTitle: byId<HTMLElement>('emptyTitle'),
  emptyText: byId<HTMLElement>('emptyText'),
  tip: byId<HTMLElement>('tip'),
  focusInfo: byId<HTMLElement>('focusInfo'),
  side: byId<HTMLElement>('side'),
  sideTitle: byId<HTMLElement>('sideTitle'),
  sideMeta: byId<HTMLElement>('sideMeta'),
  sideList: byId<HTMLUListElement>('sideList'),
};

const PALETTE_SIZE = 7;
cytoscape.use(fcose);
// cytoscape injects a <style> (`.__________cytoscape_container { position: relative }`) unless
// an element with this id exists; the CSP refuses inline styles, so the rule lives in
// media/graph.css and this marker stops the injection (and the CSP report it would cause).
document.head.appendChild(h('meta', { id: '__________cytoscape_stylesheet', name: 'cytoscape-style', content: 'media/graph.css' }));

const state: GraphViewState = {
  mode: 'entities',
  entityTypes: [],
  minMentions: 1,
  search: '',
  ...vscode.getState<Partial<GraphViewState>>(),
};
let theme: GraphTheme = readTheme();
/**
 * Memory type → palette index, the same in every drawing and every panel: the common types get
 * distinct colours. Entity types (whatever the pipeline names) get one by a hash of the name.
 */
const MEMORY_TYPE_COLOURS: Readonly<Record<string, number>> = {
  general: 0,
  decision: 1,
  fact: 2,
  preference: 3,
  problem: 4,
  error: 4,
  solution: 5,
  fix: 2,
  workflow: 5,
  procedural: 1,
  code_pattern: 3,
  semantic: 6,
  document_chunk: 6,
  // Entity types (the pipeline's): the common ones each their own colour.
  person: 0,
  service: 1,
  tool: 2,
  project: 3,
  concept: 4,
  library: 5,
  file: 6,
  other: 6,
  unknown: 6,
};
/** What the panel draws now (the entity view can fall back to memories). */
let drawn: GraphView | undefined;
/** The user panned or zoomed: a resize then keeps their view instead of fitting again. */
let userMoved = false;

function colourIndex(type: string): number {
  const fixed = MEMORY_TYPE_COLOURS[type];
  if (fixed !== undefined) return fixed;
  let h = 0;
  for (const ch of type) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return h % PALETTE_SIZE;
}

let lastDrawMs = 0;
/** Phases of the last drawing (ms): build the elements + create, layout (with the overlap pass), first render. */
const timings = { create: 0, layout: 0, overlap: 0, render: 0 };
let overlapsLeft = 0;
let cy!: cytoscape.Core; // assigned right below; createGraph replaces it per drawing
cy = createGraph(false, []);

/** A fresh cytoscape per drawing: its viewport options depend on the graph's size. */
function createGraph(large: boolean, elements: cytoscape.ElementDefinition[]): cytoscape.Core {
  cy?.destroy();
  const g = cytoscape({
    container: el.canvas,
    elements,
    style: graphStyles(theme),
    layout: { name: 'preset' },
    minZoom: 0.02,
    maxZoom: 6,
    boxSelectionEnabled: false,
    selectionType: 'single',
    // Big graphs: pan and zoom over a cached bitmap without edges, so the panel stays fluid.
    hideEdgesOnViewport: large,
    textureOnViewport: large,
    pixelRatio: large ? 1 : 'auto',
  });
  bindEvents(g);
  // Tests and the developer console reach the graph here (the canvas has no DOM per node).
  (window as unknown as { agentMemoryGraph: unknown }).agentMemoryGraph = {
    cy: g,
    lastDrawMs: () => lastDrawMs,
    overlapsLeft: () => overlapsLeft,
    timings,
  };
  return g;
}

onThemeChange(() => {
  theme = readTheme();
  cy.style(graphStyles(theme));
});

function sizeOf(mentions: number, max: number): number {
  // Area grows with mentions; a log scale keeps one hub from dwarfing the rest.
  return 12 + 24 * (Math.log1p(mentions) / Math.log1p(Math.max(1, max)));
}

function entityElements(data: EntityGraphData): cytoscape.ElementDefinition[] {
  const max = data.nodes.reduce((m, n) => Math.max(m, n.mentions), 1);
  const out: cytoscape.ElementDefinition[] = data.nodes.map((n) => ({
    group: 'nodes',
    classes: `c${colourIndex(n.type)}`,
    data: {
      id: n.id,
      label: n.name,
      short: shortLabel(n.name),
      kind: 'entity',
      type: n.type,
      mentions: n.mentions,
      size: sizeOf(n.mentions, max),
    },
  }));
  for (const e of data.edges) {
    out.push({
      group: 'edges',
      classes: data.edges.length <= 2000 ? 'relation' : '',
      data: {
        id: `r:${e.id}`,
        source: e.from,
        target: e.to,
        label: typeLabel(e.type),
        width: 1 + Math.min(3, Math.log1p(e.mentions)) * e.confidence,
      },
    });
  }
  return out;
}

/** A readable edge label: 'entity:Redis' → 'Redis', 'shared_tag:infra' → '#infra', 'similar' → 'similar 0.88'. */
function memoryEdgeLabel(kind: string, strength: number): string {
  if (kind.startsWith('entity:')) return kind.slice('entity:'.length);
  if (kind.startsWith('shared_tag:')) return `#${kind.slice('shared_tag:'.length)}`;
  if (kind === 'similar') return `similar ${strength.toFixed(2)}`;
  return kind.toLowerCase().replace(/_/g, ' ');
}

function memoryElements(data: GraphData): cytoscape.ElementDefinition[] {
  const out: cytoscape.ElementDefinition[] = data.nodes.map((n) => ({
    group: 'nodes',
    classes: n.mergedInto ? 'merged' : `c${colourIndex(n.type)}`,
    data: {
      id: n.id,
      label: n.label,
      short: shortLabel(n.label),
      kind: 'memory',
      type: n.type,
      size: 14 + n.importance * 14,
      ...(n.mergedInto ? { mergedInto: n.mergedInto } : {}),
    },
  }));
  data.edges.forEach((e, i) =>
    out.push({
      group: 'edges',
      classes: memoryEdgeKind(e.kind),
      data: { id: `m:${i}`, source: e.from, target: e.to, label: memoryEdgeLabel(e.kind, e.strength), width: 1 + e.strength },
    }),
  );
  return out;
}

/** Fits the drawing in the panel (lib/graphFit.ts), clear of the open legend. */
function fitCapped(): void {
  cy.resize();
  fitDrawing(cy, el.legend);
  userMoved = false;
}

/** The person opened (or folded) the legend: the drawing makes room for it, unless they moved the view themselves. */
function legendToggled(open: boolean): void {
  if (userMoved) return;
  cy.resize();
  fitDrawing(cy, el.legend, { keepLegendOpen: open });
}

function runLayout(n: number, force: boolean, then: () => void): void {
  const t0 = performance.now();
  const layout = cy.layout(layoutFor(n, force));
  layout.one('layoutstop', () => {
    const t1 = performance.now();
    overlapsLeft = removeOverlaps(cy);
    const t2 = performance.now();
    timings.layout = Math.round(t2 - t0);
    timings.overlap = Math.round(t2 - t1);
    fitCapped();
    cy.one('render', () => {
      timings.render = Math.round(performance.now() - t2);
      then();
    });
  });
  layout.run();
}

function render(data: GraphView, receivedAt: number, centerId?: string): void {
  drawn = data;
  saveState({ centerId });
  const entities = data.mode === 'entities';
  syncControls(data);
  renderNotice(entities ? undefined : data.notice);
  renderTypes(entities ? data : undefined);
  renderEmpty(data, centerId);
  hideTip();
  const elements = entities ? entityElements(data) : memoryElements(data);
  const nodeCount = data.nodes.length;
  const large = nodeCount > LARGE_GRAPH;
  el.status.textContent = large ? `Laying out ${nodeCount} nodes with a quick concentric layout…` : 'Laying out…';
  forceButton.hidden = !large;
  // Let the status line paint first; then create and lay out in one task, so no frame is
  // spent drawing thousands of nodes piled at the origin before the layout has placed them.
  requestAnimationFrame(() => {
    const t0 = performance.now();
    cy = createGraph(large, elements);
    timings.create = Math.round(performance.now() - t0);
    renderLegend(el.legend, legendOf(data), legendToggled);
    if (!entities) applyMemoryFilter();
    runLayout(nodeCount, false, () => {
      lastDrawMs = Math.round(performance.now() - receivedAt);
      el.status.textContent = statusLine(data, large, lastDrawMs);
    });
  });
}

/** The mode menu says what is drawn; filters that do nothing in that mode are hidden. */
function syncControls(data: GraphView): void {
  const entities = data.mode === 'entities';
  el.mode.value = entities ? 'entities' : 'memories';
  const entityOption = el.mode.querySelector<HTMLOptionElement>('option[value="entities"]');
  // Entities asked for, memories drawn (the notice says why): the menu does not pretend otherwise.
  if (entityOption) entityOption.textContent = !entities && data.notice ? 'Entities (none yet)' : 'Entities';
  el.mentionsBox.hidden = !entities;
  el.search.placeholder = entities ? 'Filter entities by name…' : 'Filter memories by text…';
  el.search.setAttribute('aria-label', el.search.placeholder.replace('…', ''));
}

function legendOf(data: GraphView): Parameters<typeof renderLegend>[1] {
  const counts = new Map<string, number>();
  let merged = 0;
  for (const n of data.nodes) {
    if ('mergedInto' in n && n.mergedInto) merged++;
    else counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  }
  const nodes = [...counts].map(([type, count]) => ({ label: typeLabel(type), count, colour: colourIndex(type) }));
  const edges = new Set<EdgeKind>();
  if (data.mode === 'entities') {
    if (data.edges.length) edges.add('relation');
  } else {
    for (const e of data.edges) edges.add(memoryEdgeKind(e.kind));
  }
  const sizeNote = data.mode === 'entities' ? 'Size: how many memories mention it' : 'Size: importance';
  return { nodes, merged, edges: [...edges], sizeNote };
}

const forceButton = h(
  'button',
  { id: 'force', title: 'Run a force-directed layout (fcose, draft quality): a few seconds at thousands of nodes' },
  'Force layout',
);
forceButton.hidden = true;
byId<HTMLButtonElement>('fit').after(forceButton);
forceButton.addEventListener('click', () => {
  const n = cy.nodes().length;
  el.status.textContent = `Running a force layout over ${n} nodes…`;
  const t0 = performance.now();
  requestAnimationFrame(() =>
    runLayout(n, true, () => {
      el.status.textContent = `Force layout of ${n} nodes in ${Math.round(performance.now() - t0)} ms. Click an entity to see its memories.`;
    }),
  );
});

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function statusLine(data: GraphView, large: boolean, ms: number): string {
  const took = ` Drawn in ${ms} ms.`;
  if (data.mode === 'entities') {
    if (!data.nodes.length) return `No entity matches the filters (${data.totalEntities} in the graph). Reset shows them all.`;
    const shown = `${data.nodes.length} of ${plural(data.totalEntities, 'entity', 'entities')}, ${plural(data.edges.length, 'relation', 'relations')}${data.truncated ? ' (the most mentioned shown: narrow with the filters)' : ''}.`;
    const how = large
      ? ' Large graph: quick concentric layout (most mentioned in the centre; Force layout for clusters); labels appear when you zoom in.'
      : '';
    return `${shown}${how}${took} Click an entity to see its memories.`;
  }
  if (!data.nodes.length) return state.search ? `No memory matches “${state.search}”. Reset shows them all.` : 'No memories yet.';
  const live = data.nodes.filter((n) => !n.mergedInto).length;
  return `${plural(live, 'memory', 'memories')}, ${plural(data.edges.length, 'link', 'links')}${data.truncated ? ' (most recent shown)' : ''}.${took} Click a memory to open it; double-click to centre on it.`;
}

function renderNotice(text: string | undefined): void {
  el.notice.hidden = !text;
  clear(el.notice);
  if (!text) return;
  const settings = h('button', { class: 'link-button', title: 'Open the pipeline settings' }, 'Pipeline Settings…');
  settings.addEventListener('click', () => vscode.post({ type: 'action', action: 'pipelineSettings' }));
  el.notice.append(h('span', {}, text), ' ', settings);
}

/** No memory at all: say what fills the graph, with the two ways to fill it. */
function renderEmpty(data: GraphView, centerId: string | undefined): void {
  // A filter that matches nothing is said in the status line; this is for a store with no memory at all.
  const empty = data.mode !== 'entities' && data.nodes.length === 0 && !centerId && !state.search;
  el.empty.hidden = !empty;
  el.legend.hidden = empty;
  if (!empty) return;
  el.emptyTitle.textContent = 'No memories to draw yet';
  el.emptyText.textContent =
    'Add memories and the graph shows them, linked by shared tags, similar memories and merges. ' +
    'Or turn on the pipeline (Ollama): it extracts the entities your memories mention and the relations between them.';
}

/** One checkbox per entity type of the graph (with its count); none checked = all types. */
function renderTypes(data: EntityGraphData | undefined): void {
  clear(el.types);
  el.types.hidden = !data;
  if (!data) return;
  el.types.appendChild(h('legend', { class: 'legend-item' }, 'Types:'));
  for (const { type, count } of data.types) {
    const box = h('input', { type: 'checkbox', value: type });
    box.checked = state.entityTypes.includes(type);
    box.addEventListener('change', () => {
      state.entityTypes = [...el.types.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value);
      query();
    });
    el.types.appendChild(
      h(
        'label',
        { title: `${count} ${typeLabel(type)} ${count === 1 ? 'entity' : 'entities'}` },
        box,
        h('span', { class: `swatch tc${colourIndex(type)}`, 'aria-hidden': 'true' }),
        typeLabel(type),
        h('span', { class: 'count' }, `(${count})`),
      ),
    );
  }
}

function saveState(patch: Partial<GraphViewState>): void {
  Object.assign(state, patch);
  if (!state.centerId) delete state.centerId;
  vscode.setState(state);
}

/** A filter changed: ask again (the centre is dropped). */
function query(): void {
  saveState({ centerId: undefined });
  closeSide();
  vscode.post({
    type: 'query',
    filters: { mode: state.mode, entityTypes: state.entityTypes, minMentions: state.minMentions, search: state.search },
  });
}

/** Memory view: the name filter hides, in the webview, the memories whose text does not match. */
function applyMemoryFilter(): void {
  const q = oneLine(state.search).toLowerCase();
  cy.batch(() => {
    cy.nodes().forEach((n) => {
      n.toggleClass('hidden-by-filter', !!q && !String(n.data('label')).toLowerCase().includes(q));
    });
  });
}

// ── hover tooltip, selection and the side panel ──────────────────────────────────────────

function describe(node: cytoscape.NodeSingular): string {
  const label = oneLine(String(node.data('label')));
  if (node.data('kind') === 'entity')
    return `${label} — ${typeLabel(String(node.data('type')))}, ${plural(Number(node.data('mentions')), 'mention', 'mentions')}`;
  if (node.data('mergedInto')) return `${label} — merged into another memory`;
  return `${label} — ${typeLabel(String(node.data('type')))}`;
}

/** The node's full text, beside it (positioned with CSSOM, which the CSP allows; no style attribute). */
function showTip(node: cytoscape.NodeSingular): void {
  el.tip.textContent = describe(node);
  el.tip.hidden = false;
  const p = node.renderedPosition();
  const r = node.renderedOuterWidth() / 2;
  const wrap = el.canvas.getBoundingClientRect();
  const left = Math.min(Math.max(4, p.x + r + 8), Math.max(4, wrap.width - el.tip.offsetWidth - 4));
  const top = Math.min(Math.max(4, p.y - el.tip.offsetHeight - r), Math.max(4, wrap.height - el.tip.offsetHeight - 4));
  el.tip.style.left = `${left}px`;
  el.tip.style.top = `${top}px`;
}

function hideTip(): void {
  el.tip.hidden = true;
}

function focusNode(node: cytoscape.NodeSingular): void {
  cy.elements().removeClass('focus faded');
  const hood = node.closedNeighborhood();
  cy.elements().not(hood).addClass('faded');
  hood.addClass('focus');
}

function closeSide(): void {
  el.side.hidden = true;
  cy.elements().removeClass('focus faded');
  cy.elements(':selected').unselect();
}

function showEntity(entity: EntityNode, memories: EntityMemory[]): void {
  el.side.hidden = false;
  el.sideTitle.textContent = entity.name;
  el.sideMeta.textContent = `${entity.type} · mentioned by ${plural(entity.mentions, 'memory', 'memories')}`;
  clear(el.sideList);
  if (!memories.length) el.sideList.appendChild(h('li', { class: 'empty' }, 'No live memory mentions it any more.'));
  for (const m of memories) {
    const li = h(
      'li',
      { tabindex: '0', 'data-id': m.id, title: 'Open this memory', role: 'button' },
      // Untitled memories show their text once (the preview), not a cut copy of it as a title.
      h('div', {}, m.title ? h('span', { class: 'm-title' }, m.title) : null, h('span', { class: 'm-type' }, m.type)),
      h('div', { class: 'm-preview' }, m.preview),
    );
    const open = () => vscode.post({ type: 'open', id: m.id });
    li.addEventListener('click', open);
    li.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') open();
    });
    el.sideList.appendChild(li);
  }
}

/** A click or Enter on a node: an entity lists its memories, a memory opens, a merged one opens what it went into. */
function activate(node: cytoscape.NodeSingular): void {
  focusNode(node);
  if (node.data('kind') === 'entity') {
    el.side.hidden = false;
    el.sideTitle.textContent = String(node.data('label'));
    el.sideMeta.textContent = 'Loading its memories…';
    clear(el.sideList);
    vscode.post({ type: 'entity', id: node.id() });
  } else {
    const into = node.data('mergedInto') as string | undefined;
    vscode.post({ type: 'open', id: into ?? node.id() });
  }
}

function bindEvents(g: cytoscape.Core): void {
  g.on('tap', 'node', (e) => activate(e.target as cytoscape.NodeSingular));
  g.on('dbltap', 'node', (e) => {
    const node = e.target as cytoscape.NodeSingular;
    if (node.data('kind') === 'memory' && !node.data('mergedInto')) vscode.post({ type: 'center', id: node.id() });
    else g.animate({ fit: { eles: node.closedNeighborhood(), padding: 60 } }, { duration: 250 });
  });
  g.on('tap', (e) => {
    if (e.target === g) closeSide();
  });
  g.on('mouseover', 'node', (e) => showTip(e.target as cytoscape.NodeSingular));
  g.on('mouseout', 'node', hideTip);
  g.on('dragpan scrollzoom pinchzoom', () => {
    userMoved = true;
    hideTip();
  });
}

bindKeyboard(el.canvas, () => cy, {
  focused: (n) => {
    el.focusInfo.textContent = `${describe(n)}. Enter opens.`;
    showTip(n);
  },
  activate,
  cleared: () => {
    hideTip();
    closeSide();
  },
});
el.canvas.addEventListener('blur', () => {
  cy.nodes('.kbd').removeClass('kbd');
  hideTip();
});

// ── controls ─────────────────────────────────────────────────────────────────────────────

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

el.mode.value = state.mode;
el.search.value = state.search;
el.minMentions.value = String(state.minMentions);
el.mode.addEventListener('change', () => {
  state.mode = el.mode.value === 'memories' ? 'memories' : 'entities';
  query();
});
el.search.addEventListener(
  'input',
  debounce(() => {
    state.search = el.search.value.trim();
    // The memory view filters here; the entity view asks the engine (it may hold thousands).
    if (drawn && drawn.mode !== 'entities') {
      saveState({});
      applyMemoryFilter();
    } else query();
  }, 250),
);
el.minMentions.addEventListener('change', () => {
  const n = Math.max(1, Math.floor(Number(el.minMentions.value) || 1));
  el.minMentions.value = String(n);
  state.minMentions = n;
  query();
});
byId<HTMLButtonElement>('fit').addEventListener('click', fitCapped);
byId<HTMLButtonElement>('refresh').addEventListener('click', () => vscode.post({ type: 'refresh' }));
byId<HTMLButtonElement>('all').addEventListener('click', () => {
  Object.assign(state, { entityTypes: [], minMentions: 1, search: '' });
  el.search.value = '';
  el.minMentions.value = '1';
  query();
});
byId<HTMLButtonElement>('emptyAdd').addEventListener('click', () => vscode.post({ type: 'action', action: 'addMemory' }));
byId<HTMLButtonElement>('emptyPipeline').addEventListener('click', () => vscode.post({ type: 'action', action: 'pipelineSettings' }));
byId<HTMLButtonElement>('sideClose').addEventListener('click', closeSide);
new ResizeObserver(() => {
  cy.resize();
  if (!userMoved) fitCapped();
}).observe(el.canvas);

vscode.onMessage((m) => {
  if (m.type === 'graph') render(m.data, performance.now(), m.centerId);
  else if (m.type === 'entityMemories') showEntity(m.entity, m.memories);
  else if (m.type === 'error') el.status.textContent = m.message;
});
// The extension answers with the graph of these filters (restored after a window reload).
vscode.post({
  type: 'query',
  filters: { mode: state.mode, entityTypes: state.entityTypes, minMentions: state.minMentions, search: state.search },
  ...(state.centerId ? { centerId: state.centerId } : {}),
});
