/**
 * Fitting the graph panel's drawing: everything visible in view, labels included; a handful of
 * nodes is not blown up to fill the panel; and the open legend, which sits over the canvas's
 * bottom-left corner, does not cover what is drawn.
 */
import type cytoscape from 'cytoscape';
import { foldLegend } from './graphLegend';
import { LABELS_READABLE_ZOOM } from './graphStyle';

const MAX_FIT_ZOOM = 1.5;
const FIT_PADDING = 30;

export function fitDrawing(cy: cytoscape.Core, legend: HTMLElement): void {
  const shown = cy.elements(':visible');
  if (!shown.length) return;
  cy.fit(shown, FIT_PADDING);
  if (cy.zoom() > MAX_FIT_ZOOM) {
    cy.zoom(MAX_FIT_ZOOM);
    cy.center(shown);
  }
  clearLegend(cy, shown, legend);
}

/**
 * When the fitted drawing runs under the legend, fit it again into the larger free room: to the
 * legend's right or above it. When either would shrink the labels below readable (and further
 * than the plain fit already did), the open legend folds for this drawing and the check runs
 * once more against its folded header.
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
  if (best && best.zoom >= Math.min(cy.zoom(), LABELS_READABLE_ZOOM)) {
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
