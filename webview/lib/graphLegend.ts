/**
 * The graph panel's legend: what the node colours and the edge styles of the drawing mean. Only
 * what is drawn is listed. Samples are CSS classes of media/graph.css (the CSP allows no style
 * attributes) over the same --vscode-* colours the canvas uses.
 */
import { clear, h } from './dom';
import { EDGE_KIND_LABELS, type EdgeKind } from './graphStyle';

export interface LegendContent {
  /** Node colours: a label, its palette index (tc0…tc6) and how many nodes have it. */
  nodes: { label: string; colour: number; count: number }[];
  /** Hollow nodes: memories absorbed by a merge. */
  merged: number;
  edges: EdgeKind[];
  /** One line on what a node's size means. */
  sizeNote: string;
}

/** Whether the legend is expanded: kept across drawings, so closing it once is enough. */
let open = true;

/**
 * The legend, as a disclosure (it sits over the canvas: whoever needs the room folds it).
 * `onToggle`: the person opened or folded it (not the fit), so the drawing can make room.
 */
export function renderLegend(el: HTMLElement, c: LegendContent, onToggle?: (open: boolean) => void): void {
  clear(el);
  el.hidden = c.nodes.length === 0;
  if (el.hidden) return;
  const box = h('details', {}, h('summary', {}, 'Legend'));
  box.open = open;
  box.addEventListener('toggle', () => {
    // A fold the fit made (foldLegend) is not the person's choice: the next drawing opens it again.
    if (box.dataset.folded === 'auto') delete box.dataset.folded;
    else {
      open = box.open;
      onToggle?.(box.open);
    }
  });
  el.appendChild(box);
  fill(box, c);
}

/** Folds the open legend for this drawing only (the drawing needs its room); the person's choice is kept. */
export function foldLegend(el: HTMLElement): boolean {
  const box = el.querySelector('details');
  if (el.hidden || !box?.open) return false;
  box.dataset.folded = 'auto';
  box.open = false;
  return true;
}

function fill(el: HTMLElement, c: LegendContent): void {
  const nodes = h('ul', { class: 'legend-list', 'aria-label': 'Node colours' });
  for (const n of c.nodes) {
    nodes.appendChild(
      h(
        'li',
        {},
        h('span', { class: `swatch tc${n.colour}`, 'aria-hidden': 'true' }),
        n.label,
        h('span', { class: 'count' }, ` ${n.count}`),
      ),
    );
  }
  if (c.merged) {
    nodes.appendChild(
      h(
        'li',
        {},
        h('span', { class: 'swatch merged', 'aria-hidden': 'true' }),
        'Merged away',
        h('span', { class: 'count' }, ` ${c.merged}`),
      ),
    );
  }
  el.appendChild(h('div', { class: 'legend-head' }, 'Nodes'));
  el.appendChild(nodes);
  el.appendChild(h('div', { class: 'legend-note' }, c.sizeNote));
  if (!c.edges.length) return;
  const edges = h('ul', { class: 'legend-list', 'aria-label': 'Edge kinds' });
  for (const k of c.edges)
    edges.appendChild(h('li', {}, h('span', { class: `edge-sample ek-${k}`, 'aria-hidden': 'true' }), EDGE_KIND_LABELS[k]));
  el.appendChild(h('div', { class: 'legend-head' }, 'Edges'));
  el.appendChild(edges);
}
