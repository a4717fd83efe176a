/**
 * Fitting the graph panel's drawing: everything visible in view, labels included; a handful of
 * nodes is not blown up to fill the panel; and the open legend, which sits over the canvas's
 * bottom-left corner, does not cover what is drawn — in both views (the memory view's legend is the
 * taller one), and again when the person opens the legend (`keepLegendOpen`).
 */
import type cytoscape from 'cytoscape';
import { foldLegend } from './graphLegend';
import { LABELS_READABLE_ZOOM } from './graphStyle';

const MAX_FIT_ZOOM = 1.5;
const FIT_PADDING = 30;

export function fitDrawing(cy: cytoscape.Core, legend: HTMLElement, opts: { keepLegendOpen?: boolean } = {}): void {
  const shown = cy.elements(':visible');
  if (!shown.length) return;
  cy.fit(shown, FIT_PADDING);
  if (cy.zoom() > MAX_FIT_ZOOM) {
    cy.zoom(MAX_FIT_ZOOM);
    cy.center(shown);
  }
  clearLegend(cy, shown, legend, !opts.keepLegendOpen);
}

/** A fit beside the legend may shrink the drawing to this fraction of the plain fit, when the labels are not drawn anyway. */
const MIN_SHRINK = 0.5;

/**
 * When the fitted drawing runs under the legend, fit it again into the larger free room: to the
 * legend's right or above it. That fit is taken when it keeps the labels readable, when the plain
 * fit was already too small for labels (a smaller zoom loses none: the memory view of a big store
 * in a small panel) as long as it keeps half its size, or when the legend must stay open (the
 * person opened it). Otherwise the open legend folds for this drawing and the check runs once more
 * against its folded header.
 */
function clearLegend(cy: cytoscape.Core, shown: cytoscape.CollectionReturnValue, legendEl: HTMLElement, mayFold = true): void {
  if (legendEl.hidden) return;
  const box = cy.container()!.getBoundingClientRect();
  const legend = legendEl.getBoundingClientRect();
  const legendRight = legend.right - box.left;
  const legendTop = legend.top - box.top;
  const drawn = shown.renderedBoundingBox();
  if (drawn.x1 >= legendRight || drawn.y2 <= legendTop) return; // nothing under it
  const bb = shown.boundingBox();
  const rooms: Room[] = [
    { left: legendRight + FIT_PADDING / 2, top: FIT_PADDING, right: cy.width() - FIT_PADDING, bottom: cy.height() - FIT_PADDING },
    { left: FIT_PADDING, top: FIT_PADDING, right: cy.width() - FIT_PADDING, bottom: legendTop - FIT_PADDING / 2 },
  ];
  const fits = rooms
    .filter((r) => r.right > r.left && r.bottom > r.top)
    .map((r) => ({ room: r, zoom: Math.min(MAX_FIT_ZOOM, (r.right - r.left) / Math.max(bb.w, 1), (r.bottom - r.top) / Math.max(bb.h, 1)) }))
    .sort((a, b) => b.zoom - a.zoom);
  const best = fits[0];
  const plain = cy.zoom();
  const readable = (z: number) => z >= Math.min(plain, LABELS_READABLE_ZOOM);
  const labelsHiddenAnyway = (z: number) => plain < LABELS_READABLE_ZOOM && z >= plain * MIN_SHRINK;
  if (best && (readable(best.zoom) || labelsHiddenAnyway(best.zoom) || !mayFold)) {
    const { room, zoom } = best;
    cy.zoom(zoom);
    cy.pan({
      x: room.left + (room.right - room.left - bb.w * zoom) / 2 - bb.x1 * zoom,
      y: room.top + (room.bottom - room.top - bb.h * zoom) / 2 - bb.y1 * zoom,
    });
    return;
  }
  if (mayFold && foldLegend(legendEl)) clearLegend(cy, shown, legendEl, false);
}

/** A free rectangle of the canvas, in panel pixels. */
interface Room {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
