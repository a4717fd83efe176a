/**
 * Fitting the graph panel's drawing: everything visible in view, labels included; a handful of
 * nodes is not blown up to fill the panel; and the open legend, which sits over the canvas's
 * bottom-left corner, does not cover what is drawn.
 */
import type cytoscape from 'cytoscape';
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
 * When the fitted drawing runs under the open legend, fit again into the room to its right —
 * unless that would shrink the labels below readable (a large graph: the legend folds instead).
 */
function clearLegend(cy: cytoscape.Core, shown: cytoscape.CollectionReturnValue, legendEl: HTMLElement): void {
  if (legendEl.hidden || !legendEl.querySelector('details')?.open) return;
  const box = cy.container()!.getBoundingClientRect();
  const legend = legendEl.getBoundingClientRect();
  const drawn = shown.renderedBoundingBox();
  const legendRight = legend.right - box.left;
  if (drawn.x1 >= legendRight || drawn.y2 <= legend.top - box.top) return; // nothing under it
  const bb = shown.boundingBox();
  const left = legendRight + FIT_PADDING / 2;
  const width = cy.width() - left - FIT_PADDING;
  const height = cy.height() - 2 * FIT_PADDING;
  const zoom = Math.min(MAX_FIT_ZOOM, width / Math.max(bb.w, 1), height / Math.max(bb.h, 1));
  if (width <= 0 || zoom < Math.min(cy.zoom(), LABELS_READABLE_ZOOM)) return;
  cy.zoom(zoom);
  cy.pan({ x: left + (width - bb.w * zoom) / 2 - bb.x1 * zoom, y: FIT_PADDING + (height - bb.h * zoom) / 2 - bb.y1 * zoom });
}
