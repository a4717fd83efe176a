/**
 * The graph panel (browser code). Draws the knowledge graph (entities + relations) or, as the
 * fallback, memories, with cytoscape on a canvas: zoom and pan with wheel and drag, Fit,
 * filters (entity types, minimum mentions, name), click an entity to list the memories that
 * mention it in the side panel, click a memory there to open it.
 *
 * Safety: names and memory text reach the DOM only through textContent (lib/dom.ts); on the
 * canvas they are painted as text, never parsed. No inline styles: cytoscape's colours come
 * from the --vscode-* variables read at run time (lib/graphTheme.ts).
 */
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import type { FromGraphView, GraphFilters, ToGraphView } from '../src/extension/webviewMessages';
import type { EntityGraphData, EntityMemory, EntityNode, GraphData, GraphView } from '../src/engine/protocol';
import { byId, clear, h } from './lib/dom';
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
  minMentions: byId<HTMLInputElement>('minMentions'),
  side: byId<HTMLElement>('side'),
  sideTitle: byId<HTMLElement>('sideTitle'),
  sideMeta: byId<HTMLElement>('sideMeta'),
  sideList: byId<HTMLUListElement>('sideList'),
};

/**
 * Layouts, measured at n nodes / 2n edges in headless Chromium (2 cores, no GPU), time to first
 * draw: fcose 'default' 1.4 s at 300 nodes but 21 s at 800; fcose 'draft' (spectral only) 0.7 s
 * at 300, 1.3 s at 800, 2.8 s at 1,500, 3.5 s at 3,000; cytoscape's own cose 2.4 s at 300,
 * 14 s at 800, 89 s at 3,000; concentric 1.2 s at 3,000. Hence: fcose default for small graphs,
 * draft up to LARGE_GRAPH, concentric above (a Force layout button runs fcose draft on demand).
 */
const SMALL_GRAPH = 250;
const LARGE_GRAPH = 1500;
const PALETTE_SIZE = 7;
cytoscape.use(fcose);
// cytoscape injects a <style> (`.__________cytoscape_container { position: relative }`) unless
// an element with this id exists; the CSP refuses inline styles, so the rule lives in
// media/graph.css and this marker stops the injection (and the CSP report it would cause).
document.head.appendChild(h('meta', { id: '__________cytoscape_stylesheet', name: 'cytoscape-style', content: 'media/graph.css' }));

const filters: GraphFilters = {
  mode: 'entities',
  entityTypes: [],
  minMentions: 1,
  search: '',
  ...vscode.getState<Partial<GraphFilters>>(),
};
let theme: GraphTheme = readTheme();
/** Entity type (or memory type) → palette index, stable for the panel's life. */
const typeIndex = new Map<string, number>();

function colourIndex(type: string): number {
  if (!typeIndex.has(type)) typeIndex.set(type, typeIndex.size % PALETTE_SIZE);
  return typeIndex.get(type)!;
}

function styles(t: GraphTheme): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node',
      style: {
        'background-color': t.foreground,
        width: 'data(size)',
        height: 'data(size)',
        label: 'data(short)',
        color: t.foreground,
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        // Labels appear once zoomed in far enough to read them: thousands of labels are noise and slow.
        'min-zoomed-font-size': 9,
        'text-outline-color': t.background,
        'text-outline-width': 1,
      },
    },
    // One class per palette colour, not a function: cytoscape caches class styles, not functions.
    ...t.palette.map((colour, i) => ({ selector: `node.c${i}`, style: { 'background-color': colour } })),
    {
      selector: 'edge',
      style: {
        width: 'data(width)',
        'line-color': t.edge,
        opacity: 0.55,
        // haystack: the cheapest edges to draw (straight, no arrows): right for thousands of them.
        'curve-style': 'haystack',
      },
    },
    {
      selector: 'edge.directed',
      style: { 'curve-style': 'straight', 'target-arrow-shape': 'triangle', 'target-arrow-color': t.edge, 'arrow-scale': 0.8 },
    },
    {
      selector: 'edge.focus',
      style: {
        label: 'data(label)',
        'font-size': 10,
        color: t.muted,
        'text-rotation': 'autorotate',
        opacity: 1,
        'line-color': t.focus,
        'target-arrow-color': t.focus,
        width: 2,
      },
    },
    { selector: 'node.focus', style: { 'min-zoomed-font-size': 0, 'z-index': 10 } },
    {
      selector: 'node:selected',
      style: { 'border-width': 3, 'border-color': t.focus, 'min-zoomed-font-size': 0, 'font-weight': 'bold', 'z-index': 20 },
    },
    { selector: '.faded', style: { opacity: 0.15 } },
  ];
}

let lastDrawMs = 0;
/** Phases of the last drawing (ms): build the elements + create, layout, first render. */
const timings = { create: 0, layout: 0, render: 0 };
let cy!: cytoscape.Core; // assigned right below; createGraph replaces it per drawing
cy = createGraph(false, []);

/** A fresh cytoscape per drawing: its viewport options depend on the graph's size. */
function createGraph(large: boolean, elements: cytoscape.ElementDefinition[]): cytoscape.Core {
  cy?.destroy();
  const g = cytoscape({
    container: el.canvas,
    elements,
    style: styles(theme),
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
  (window as unknown as { agentMemoryGraph: unknown }).agentMemoryGraph = { cy: g, lastDrawMs: () => lastDrawMs, timings };
  return g;
}

onThemeChange(() => {
  theme = readTheme();
  cy.style(styles(theme));
});

/** Canvas labels are cut here (cheaper than cytoscape's measured ellipsis); the side panel shows the whole name. */
function short(label: string): string {
  const one = label.replace(/\s+/g, ' ');
  return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

function sizeOf(mentions: number, max: number): number {
  // Area grows with mentions; a log scale keeps one hub from dwarfing the rest.
  return 10 + 26 * (Math.log1p(mentions) / Math.log1p(Math.max(1, max)));
}

function entityElements(data: EntityGraphData): cytoscape.ElementDefinition[] {
  const max = data.nodes.reduce((m, n) => Math.max(m, n.mentions), 1);
  const out: cytoscape.ElementDefinition[] = data.nodes.map((n) => ({
    group: 'nodes',
    classes: `c${colourIndex(n.type)}`,
    data: {
      id: n.id,
      label: n.name,
      short: short(n.name),
      kind: 'entity',
      type: n.type,
      mentions: n.mentions,
      size: sizeOf(n.mentions, max),
    },
  }));
  for (const e of data.edges) {
    out.push({
      group: 'edges',
      classes: data.edges.length <= 2000 ? 'directed' : '',
      data: { id: `r:${e.id}`, source: e.from, target: e.to, label: e.type, width: 1 + Math.min(3, Math.log1p(e.mentions)) * e.confidence },
    });
  }
  return out;
}

function memoryElements(data: GraphData): cytoscape.ElementDefinition[] {
  const out: cytoscape.ElementDefinition[] = data.nodes.map((n) => ({
    group: 'nodes',
    classes: `c${colourIndex(n.type)}`,
    data: { id: n.id, label: n.label, short: short(n.label), kind: 'memory', type: n.type, size: 12 + n.importance * 14 },
  }));
  data.edges.forEach((e, i) =>
    out.push({ group: 'edges', data: { id: `m:${i}`, source: e.from, target: e.to, label: e.kind, width: 1 + e.strength } }),
  );
  return out;
}

/** See the measurements above; `force` asks for fcose whatever the size (the Force layout button). */
function layoutFor(n: number, force = false): cytoscape.LayoutOptions {
  if (n > LARGE_GRAPH && !force) {
    return {
      name: 'concentric',
      animate: false,
      fit: false,
      minNodeSpacing: 4,
      concentric: (node: cytoscape.NodeSingular) => Number(node.data('mentions') ?? 1),
      levelWidth: () => 2,
    } as cytoscape.LayoutOptions;
  }
  return {
    name: 'fcose',
    quality: n > SMALL_GRAPH ? 'draft' : 'default',
    randomize: true,
    animate: false,
    fit: false,
    padding: 30,
    nodeRepulsion: () => 6000,
    idealEdgeLength: () => 70,
    nodeSeparation: 60,
  } as cytoscape.LayoutOptions;
}

/** Fit the graph to the panel, but a handful of nodes is not blown up to fill it. */
function fitCapped(): void {
  cy.fit(undefined, 30);
  if (cy.zoom() > 1.5) {
    cy.zoom(1.5);
    cy.center();
  }
}

function runLayout(n: number, force: boolean, then: () => void): void {
  const t0 = performance.now();
  const layout = cy.layout(layoutFor(n, force));
  layout.one('layoutstop', () => {
    const t1 = performance.now();
    timings.layout = Math.round(t1 - t0);
    fitCapped();
    cy.one('render', () => {
      timings.render = Math.round(performance.now() - t1);
      then();
    });
  });
  layout.run();
}

function render(data: GraphView, receivedAt: number): void {
  const entities = data.mode === 'entities';
  el.mode.value = entities ? 'entities' : filters.mode === 'entities' ? 'entities' : 'memories';
  renderNotice(entities ? undefined : data.notice);
  renderTypes(entities ? data : undefined);
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
    runLayout(nodeCount, false, () => {
      lastDrawMs = Math.round(performance.now() - receivedAt);
      el.status.textContent = statusLine(data, large, lastDrawMs);
    });
  });
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

function statusLine(data: GraphView, large: boolean, ms: number): string {
  const took = ` Drawn in ${ms} ms.`;
  if (data.mode === 'entities') {
    if (!data.nodes.length) return `No entity matches the filters (${data.totalEntities} in the graph).`;
    const shown = `${data.nodes.length} of ${data.totalEntities} entities, ${data.edges.length} relations${data.truncated ? ' (the most mentioned shown: narrow with the filters)' : ''}.`;
    const how = large
      ? ' Large graph: quick concentric layout (most mentioned in the centre; Force layout for clusters); labels appear when you zoom in.'
      : '';
    return `${shown}${how}${took} Click an entity to see its memories.`;
  }
  if (!data.nodes.length) return 'No memories yet.';
  return `${data.nodes.length} ${data.nodes.length === 1 ? 'memory' : 'memories'}, ${data.edges.length} ${data.edges.length === 1 ? 'link' : 'links'}${data.truncated ? ' (most recent shown)' : ''}.${took} Click a memory to open it; double-click to centre on it.`;
}

function renderNotice(text: string | undefined): void {
  el.notice.hidden = !text;
  el.notice.textContent = text ?? '';
}

/** One checkbox per entity type of the graph (with its count); none checked = all types. */
function renderTypes(data: EntityGraphData | undefined): void {
  clear(el.types);
  el.types.hidden = !data;
  if (!data) return;
  el.types.appendChild(h('legend', { class: 'legend-item' }, 'Types:'));
  for (const { type, count } of data.types) {
    const box = h('input', { type: 'checkbox', value: type });
    box.checked = filters.entityTypes.includes(type);
    box.addEventListener('change', () => {
      filters.entityTypes = [...el.types.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value);
      query();
    });
    el.types.appendChild(
      h(
        'label',
        { title: `${count} ${type} entities` },
        box,
        h('span', { class: `swatch tc${colourIndex(type)}` }),
        type,
        h('span', { class: 'count' }, `(${count})`),
      ),
    );
  }
}

function query(): void {
  vscode.setState(filters);
  closeSide();
  vscode.post({ type: 'query', filters: { ...filters } });
}

// ── selection and the side panel ─────────────────────────────────────────────────────────

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
  el.sideMeta.textContent = `${entity.type} · mentioned by ${entity.mentions} ${entity.mentions === 1 ? 'memory' : 'memories'}`;
  clear(el.sideList);
  if (!memories.length) el.sideList.appendChild(h('li', { class: 'empty' }, 'No live memory mentions it any more.'));
  for (const m of memories) {
    const li = h(
      'li',
      { tabindex: '0', 'data-id': m.id, title: 'Open this memory' },
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

function bindEvents(cy: cytoscape.Core): void {
  cy.on('tap', 'node', (e) => {
    const node = e.target as cytoscape.NodeSingular;
    focusNode(node);
    if (node.data('kind') === 'entity') {
      el.side.hidden = false;
      el.sideTitle.textContent = String(node.data('label'));
      el.sideMeta.textContent = 'Loading its memories…';
      clear(el.sideList);
      vscode.post({ type: 'entity', id: node.id() });
    } else {
      vscode.post({ type: 'open', id: node.id() });
    }
  });
  cy.on('dbltap', 'node', (e) => {
    const node = e.target as cytoscape.NodeSingular;
    if (node.data('kind') === 'memory') vscode.post({ type: 'center', id: node.id() });
    else cy.animate({ fit: { eles: node.closedNeighborhood(), padding: 60 } }, { duration: 250 });
  });
  cy.on('tap', (e) => {
    if (e.target === cy) closeSide();
  });
}

// ── controls ─────────────────────────────────────────────────────────────────────────────

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

el.mode.value = filters.mode;
el.search.value = filters.search;
el.minMentions.value = String(filters.minMentions);
el.mode.addEventListener('change', () => {
  filters.mode = el.mode.value === 'memories' ? 'memories' : 'entities';
  query();
});
el.search.addEventListener(
  'input',
  debounce(() => {
    filters.search = el.search.value.trim();
    query();
  }, 250),
);
el.minMentions.addEventListener('change', () => {
  const n = Math.max(1, Math.floor(Number(el.minMentions.value) || 1));
  el.minMentions.value = String(n);
  filters.minMentions = n;
  query();
});
byId<HTMLButtonElement>('fit').addEventListener('click', fitCapped);
byId<HTMLButtonElement>('refresh').addEventListener('click', () => vscode.post({ type: 'refresh' }));
byId<HTMLButtonElement>('all').addEventListener('click', () => {
  Object.assign(filters, { entityTypes: [], minMentions: 1, search: '' });
  el.search.value = '';
  el.minMentions.value = '1';
  query();
});
byId<HTMLButtonElement>('sideClose').addEventListener('click', closeSide);
new ResizeObserver(() => cy.resize()).observe(el.canvas);

vscode.onMessage((m) => {
  if (m.type === 'graph') render(m.data, performance.now());
  else if (m.type === 'entityMemories') showEntity(m.entity, m.memories);
  else if (m.type === 'error') el.status.textContent = m.message;
});
// The extension answers 'ready' with the graph of its current filters: send ours first.
vscode.post({ type: 'query', filters: { ...filters } });
