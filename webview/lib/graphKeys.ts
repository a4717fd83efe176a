/**
 * Keyboard navigation over the graph's canvas (it has no DOM per node): the canvas takes focus
 * with Tab, the arrow keys move to the nearest node in that direction, Enter opens the focused
 * node, Escape clears. The focused node carries the class 'kbd' (a focus-coloured border).
 */
import type cytoscape from 'cytoscape';

export type Direction = 'left' | 'right' | 'up' | 'down';

const DIRECTIONS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };
const VECTORS: Record<Direction, [number, number]> = { left: [-1, 0], right: [1, 0], up: [0, -1], down: [0, 1] };

/**
 * The node nearest to `from` in `dir`: among nodes within 60° of the direction, the one with the
 * least distance, where sideways distance counts double (so "right" prefers the node straight
 * to the right over a nearer one up and to the right).
 */
export function nearestInDirection(
  from: cytoscape.NodeSingular,
  nodes: cytoscape.NodeCollection,
  dir: Direction,
): cytoscape.NodeSingular | undefined {
  const [vx, vy] = VECTORS[dir];
  const p = from.position();
  let best: cytoscape.NodeSingular | undefined;
  let bestScore = Infinity;
  nodes.forEach((n) => {
    if (n.same(from)) return;
    const q = n.position();
    const dx = q.x - p.x;
    const dy = q.y - p.y;
    const along = dx * vx + dy * vy;
    const across = Math.abs(dx * vy - dy * vx);
    if (along <= 0 || across > along * Math.sqrt(3)) return;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = n;
    }
  });
  return best;
}

/** The node nearest the centre of the viewport: where keyboard focus starts. */
export function nodeNearestCentre(cy: cytoscape.Core, nodes: cytoscape.NodeCollection): cytoscape.NodeSingular | undefined {
  const e = cy.extent();
  const cx = (e.x1 + e.x2) / 2;
  const cyy = (e.y1 + e.y2) / 2;
  let best: cytoscape.NodeSingular | undefined;
  let bestD = Infinity;
  nodes.forEach((n) => {
    const q = n.position();
    const d = (q.x - cx) ** 2 + (q.y - cyy) ** 2;
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  });
  return best;
}

export interface KeyboardHandlers {
  /** A node got keyboard focus (announce it, show its tooltip). */
  focused(node: cytoscape.NodeSingular): void;
  /** Enter on the focused node. */
  activate(node: cytoscape.NodeSingular): void;
  /** Escape, or focus left the canvas. */
  cleared(): void;
}

/** Binds the keys on the canvas container; `graph()` is the current cytoscape (replaced per drawing). */
export function bindKeyboard(container: HTMLElement, graph: () => cytoscape.Core, on: KeyboardHandlers): void {
  const current = () => graph().nodes('.kbd:visible').first();
  const focus = (n: cytoscape.NodeSingular) => {
    const cy = graph();
    cy.nodes('.kbd').removeClass('kbd');
    n.addClass('kbd');
    // Keep the focused node on screen: pan to it when it is outside the viewport.
    const e = cy.extent();
    const p = n.position();
    if (p.x < e.x1 || p.x > e.x2 || p.y < e.y1 || p.y > e.y2) cy.center(n);
    on.focused(n);
  };
  container.addEventListener('focus', () => {
    const cy = graph();
    const start = current().nonempty() ? current() : nodeNearestCentre(cy, cy.nodes(':visible'));
    if (start) focus(start as cytoscape.NodeSingular);
  });
  container.addEventListener('keydown', (e) => {
    const cy = graph();
    const at = current();
    const dir = DIRECTIONS[e.key];
    if (dir) {
      e.preventDefault();
      const from = at.nonempty() ? (at as cytoscape.NodeSingular) : nodeNearestCentre(cy, cy.nodes(':visible'));
      if (!from) return;
      const next = at.nonempty() ? nearestInDirection(from, cy.nodes(':visible'), dir) : from;
      if (next) focus(next);
    } else if (e.key === 'Enter' && at.nonempty()) {
      e.preventDefault();
      on.activate(at as cytoscape.NodeSingular);
    } else if (e.key === 'Escape') {
      cy.nodes('.kbd').removeClass('kbd');
      on.cleared();
    }
  });
}
