/**
 * Layout of the graph panel. A force layout (cytoscape-fcose) places related nodes together;
 * then a pass removes overlaps, treating each node with its label as one rectangle, so no label
 * is printed over another one or over a node — fcose alone tiles unconnected nodes in a tight
 * grid (10 px apart), which printed labels over each other, and its 'draft' quality piles big
 * graphs up. Small graphs: overlapping boxes are pushed apart; big or dense ones: each box gets
 * its own cell of a grid, near where the force layout put it.
 *
 * Measured at n nodes / 2n edges in headless Chromium (2 cores, no GPU), time to first draw:
 * fcose 'default' 1.4 s at 300 nodes but 21 s at 800; fcose 'draft' (spectral only) 0.7 s at
 * 300, 1.3 s at 800, 2.8 s at 1,500, 3.5 s at 3,000; cytoscape's cose 89 s at 3,000;
 * concentric 1.2 s at 3,000. Hence fcose default for small graphs, draft up to LARGE_GRAPH,
 * concentric above it (the Force layout button runs fcose draft on demand). Figures with the
 * overlap pass: bench/RESULTS-graph.md.
 */
import type cytoscape from 'cytoscape';

export const SMALL_GRAPH = 250;
export const LARGE_GRAPH = 2500;
/** Largest graph the overlap pass runs on: the concentric layout above LARGE_GRAPH keeps its rings. */
const OVERLAP_PASS_MAX = LARGE_GRAPH;
const OVERLAP_ROUNDS = 60;
/** Space kept between two node+label boxes (model px). */
const GAP = 6;

export function layoutFor(n: number, force = false): cytoscape.LayoutOptions {
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
    nodeDimensionsIncludeLabels: true,
    nodeRepulsion: () => 9000,
    idealEdgeLength: () => 90,
    nodeSeparation: 90,
    // Unconnected nodes are tiled in a grid: leave room for a label beside and below each one.
    tilingPaddingHorizontal: 40,
    tilingPaddingVertical: 30,
  } as cytoscape.LayoutOptions;
}

interface Box {
  node: cytoscape.NodeSingular;
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}

function boxes(cy: cytoscape.Core): Box[] {
  return cy.nodes(':visible').map((node) => {
    const b = node.boundingBox({ includeLabels: true, includeOverlays: false });
    return { node, x1: b.x1 - GAP / 2, x2: b.x2 + GAP / 2, y1: b.y1 - GAP / 2, y2: b.y2 + GAP / 2 };
  });
}

/** Pushes two overlapping boxes apart along the axis where they overlap least; true if they overlapped. */
function separate(a: Box, b: Box): boolean {
  const ox = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const oy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  // Boxes that touch (a grid does that) are not overlapping: allow for rounding.
  if (ox <= 0.01 || oy <= 0.01) return false;
  const ca = (a.x1 + a.x2) / 2 - (b.x1 + b.x2) / 2;
  const cb = (a.y1 + a.y2) / 2 - (b.y1 + b.y2) / 2;
  if (ox < oy) {
    const d = (ox / 2 + 0.5) * (ca < 0 ? -1 : 1);
    shift(a, d, 0);
    shift(b, -d, 0);
  } else {
    const d = (oy / 2 + 0.5) * (cb < 0 ? -1 : 1);
    shift(a, 0, d);
    shift(b, 0, -d);
  }
  return true;
}

function shift(b: Box, dx: number, dy: number): void {
  b.x1 += dx;
  b.x2 += dx;
  b.y1 += dy;
  b.y2 += dy;
}

/**
 * Room the grid leaves: cells per node. More keeps the force layout's shape, fewer packs tighter.
 */
const GRID_ROOM = 2;

/** A grid cell as one number (cells stay far within ±50,000 of the centre). */
const cellKey = (i: number, j: number) => (i + 50_000) * 100_000 + (j + 50_000);

/** The free cell nearest to (ti, tj), searched ring by ring around it (each ring's perimeter only). */
function nearestFreeCell(taken: Set<number>, ti: number, tj: number): [number, number] {
  // A box without a finite size or place (never expected) starts at the centre, not an endless search.
  const ft = Number.isFinite(ti) ? ti : 0;
  const fj = Number.isFinite(tj) ? tj : 0;
  const i0 = Math.round(ft);
  const j0 = Math.round(fj);
  for (let r = 0; ; r++) {
    let best: [number, number] | undefined;
    let bestD = Infinity;
    const consider = (i: number, j: number) => {
      if (taken.has(cellKey(i, j))) return;
      const d = (i - ft) ** 2 + (j - fj) ** 2;
      if (d < bestD) {
        bestD = d;
        best = [i, j];
      }
    };
    for (let d = -r; d <= r; d++) {
      consider(i0 + d, j0 - r);
      consider(i0 + d, j0 + r);
      consider(i0 - r, j0 + d);
      consider(i0 + r, j0 + d);
    }
    if (best) return best;
  }
}

/**
 * Places every box in its own cell of a grid as large as the largest box, as near as it can to
 * where the force layout put it (the layout is first scaled to GRID_ROOM cells per node): no
 * overlap is left, whatever the density. The centre of the drawing is placed first.
 */
function snapToGrid(all: Box[]): void {
  const cw = Math.max(...all.map((b) => b.x2 - b.x1));
  const ch = Math.max(...all.map((b) => b.y2 - b.y1));
  const mid = (b: Box): [number, number] => [(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2];
  const xs = all.map((b) => mid(b)[0]);
  const ys = all.map((b) => mid(b)[1]);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const area = Math.max(1, (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys)));
  const k = Math.max(1, Math.sqrt((GRID_ROOM * all.length * cw * ch) / area));
  const taken = new Set<number>();
  const order = [...all].sort((p, q) => Math.hypot(mid(p)[0] - cx, mid(p)[1] - cy) - Math.hypot(mid(q)[0] - cx, mid(q)[1] - cy));
  for (const b of order) {
    const [mx, my] = mid(b);
    const [i, j] = nearestFreeCell(taken, ((mx - cx) * k) / cw, ((my - cy) * k) / ch);
    taken.add(cellKey(i, j));
    shift(b, cx + i * cw - mx, cy + j * ch - my);
  }
}

/** Pushing flung the boxes apart (boxes piled on one point do that): the drawing is far wider than a grid of them would be. */
function scattered(all: Box[]): boolean {
  if (all.length < 2) return false;
  const cw = Math.max(...all.map((b) => b.x2 - b.x1));
  const ch = Math.max(...all.map((b) => b.y2 - b.y1));
  const w = Math.max(...all.map((b) => b.x2)) - Math.min(...all.map((b) => b.x1));
  const h = Math.max(...all.map((b) => b.y2)) - Math.min(...all.map((b) => b.y1));
  return w * h > 25 * GRID_ROOM * all.length * cw * ch;
}

/** One sweep over the boxes sorted by left edge; how many pairs overlapped. */
function sweep(all: Box[]): number {
  all.sort((p, q) => p.x1 - q.x1);
  let overlaps = 0;
  for (let i = 0; i < all.length; i++) {
    const a = all[i]!;
    for (let j = i + 1; j < all.length && all[j]!.x1 < a.x2; j++) if (separate(a, all[j]!)) overlaps++;
  }
  return overlaps;
}

/**
 * Moves nodes until no node+label rectangle overlaps another; returns the overlaps left (0), or
 * -1 when the graph is too big for it. Boxes are measured once and moved with their nodes.
 */
export function removeOverlaps(cy: cytoscape.Core): number {
  if (cy.nodes(':visible').length > OVERLAP_PASS_MAX) return -1;
  const all = boxes(cy);
  const start = new Map(all.map((b) => [b, { x: b.x1, y: b.y1 }]));
  // Small graphs: push overlapping boxes apart (keeps the force layout's shape). Big or dense
  // ones, or when pushing does not settle: one box per grid cell.
  let left = all.length <= SMALL_GRAPH ? OVERLAP_ROUNDS : 1;
  for (let round = 0; round < OVERLAP_ROUNDS && all.length <= SMALL_GRAPH && left > 0; round++) left = sweep(all);
  if (left > 0 || scattered(all)) {
    // From the layout's own positions: pushing did not settle, or it flung boxes far apart.
    for (const b of all) {
      const s = start.get(b)!;
      shift(b, s.x - b.x1, s.y - b.y1);
    }
    snapToGrid(all);
    left = sweep(all);
  }
  cy.batch(() => {
    for (const b of all) {
      const s = start.get(b)!;
      const p = b.node.position();
      if (b.x1 !== s.x || b.y1 !== s.y) b.node.position({ x: p.x + b.x1 - s.x, y: p.y + b.y1 - s.y });
    }
  });
  return left;
}
