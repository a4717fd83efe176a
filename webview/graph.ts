/**
 * The memory graph panel (browser code): a small force-directed layout in SVG. Labels are SVG
 * text nodes (textContent); clicking a node opens the memory, double-click centres on it.
 */
import type { FromGraphView, ToGraphView } from '../src/extension/webviewMessages';
import type { GraphData, GraphNode } from '../src/engine/protocol';
import { byId, clear, h, svg } from './lib/dom';
import { channel } from './lib/vscodeApi';

const vscode = channel<ToGraphView, FromGraphView>();
const canvas = byId<HTMLElement>('canvas');
const status = byId<HTMLElement>('status');
const legend = byId<HTMLElement>('legend');
/** Colour classes tc0…tc6 (media/webview.css: --vscode-charts-*). Classes, because the CSP forbids style attributes. */
const PALETTE_SIZE = 7;
const LABEL_ROOM = 300;

interface P { x: number; y: number; vx: number; vy: number }

function layout(data: GraphData, w: number, hgt: number): Map<string, P> {
  const pos = new Map<string, P>();
  const n = data.nodes.length;
  data.nodes.forEach((node, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, n);
    pos.set(node.id, { x: w / 2 + Math.cos(a) * w * 0.3, y: hgt / 2 + Math.sin(a) * hgt * 0.3, vx: 0, vy: 0 });
  });
  const nodes = [...pos.values()];
  // Ideal edge length; capped so a handful of nodes stay together instead of flying to the edges.
  const k = Math.min(120, Math.sqrt((w * hgt) / Math.max(1, n)) * 0.6);
  for (let step = 0; step < 250; step++) {
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i]!, b = nodes[j]!;
        const dx = a.x - b.x || 0.01, dy = a.y - b.y || 0.01;
        const d2 = dx * dx + dy * dy;
        const f = (k * k) / d2;
        a.vx += dx * f * 0.05; a.vy += dy * f * 0.05; b.vx -= dx * f * 0.05; b.vy -= dy * f * 0.05;
      }
    }
    for (const e of data.edges) {
      const a = pos.get(e.from), b = pos.get(e.to);
      if (!a || !b) continue;
      const dx = b.x - a.x, dy = b.y - a.y;
      const d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = ((d - k) / d) * 0.05;
      a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
    }
    for (const p of nodes) {
      p.vx += (w / 2 - p.x) * 0.02; p.vy += (hgt / 2 - p.y) * 0.02;
      // Room on the right for the label (up to 40 characters).
      p.x = Math.min(w - LABEL_ROOM, Math.max(20, p.x + Math.max(-20, Math.min(20, p.vx))));
      p.y = Math.min(hgt - 20, Math.max(20, p.y + Math.max(-20, Math.min(20, p.vy))));
      p.vx *= 0.6; p.vy *= 0.6;
    }
  }
  return pos;
}

function colourOf(types: string[], t: string): string {
  return `tc${types.indexOf(t) % PALETTE_SIZE}`;
}

function render(data: GraphData): void {
  clear(canvas);
  clear(legend);
  const w = Math.max(300, canvas.clientWidth), hgt = Math.max(300, canvas.clientHeight);
  const types = [...new Set(data.nodes.map((n) => n.type))].sort();
  for (const t of types) legend.appendChild(h('span', { class: 'legend-item' }, h('span', { class: `swatch ${colourOf(types, t)}` }), t));
  status.textContent = data.nodes.length
    ? `${data.nodes.length} memories, ${data.edges.length} links${data.truncated ? ' (most recent shown)' : ''}. Click a node to open it; double-click to centre on it.`
    : 'No memories yet.';
  const pos = layout(data, w, hgt);
  const root = svg('svg', { width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': 'Memory graph' });
  for (const e of data.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    root.appendChild(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: e.kind.startsWith('shared_tag:') ? 'edge tag' : 'edge' }, svg('title', {}, e.kind)));
  }
  for (const node of data.nodes) root.appendChild(nodeEl(node, pos.get(node.id)!, colourOf(types, node.type)));
  canvas.appendChild(root);
}

function nodeEl(node: GraphNode, p: P, colour: string): SVGGElement {
  const label = node.label.length > 40 ? `${node.label.slice(0, 39)}…` : node.label;
  const g = svg('g', { class: 'node', 'data-id': node.id, tabindex: 0, transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})` },
    svg('circle', { r: 6 + node.importance * 6, class: colour }),
    svg('text', { x: 12, y: 4 }, label),
    svg('title', {}, `${node.type}${node.scope === 'global' ? ' (global)' : ''}: ${node.label}`),
  );
  g.addEventListener('click', () => vscode.post({ type: 'open', id: node.id }));
  g.addEventListener('dblclick', () => vscode.post({ type: 'center', id: node.id }));
  g.addEventListener('keydown', (e) => { if (e.key === 'Enter') vscode.post({ type: 'open', id: node.id }); });
  return g;
}

vscode.onMessage((m) => {
  if (m.type === 'graph') render(m.data);
  else if (m.type === 'error') status.textContent = m.message;
});
byId<HTMLButtonElement>('refresh').addEventListener('click', () => vscode.post({ type: 'refresh' }));
byId<HTMLButtonElement>('all').addEventListener('click', () => vscode.post({ type: 'center' }));
vscode.post({ type: 'ready' });
