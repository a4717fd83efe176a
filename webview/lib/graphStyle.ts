/**
 * The cytoscape stylesheet of the graph panel and the edge kinds it draws. Colours come from the
 * theme (lib/graphTheme.ts); media/graph.css draws the legend's samples from the same variables,
 * so the legend and the canvas agree.
 */
import type cytoscape from 'cytoscape';
import type { GraphTheme } from './graphTheme';

/** Edge kinds, as classes of the edges and rows of the legend. */
export type EdgeKind = 'relation' | 'link' | 'similar' | 'merged' | 'entity' | 'tag';

export const EDGE_KIND_LABELS: Record<EdgeKind, string> = {
  relation: 'Relation (arrow: direction)',
  link: 'Linked (supersedes, solves…)',
  similar: 'Similar: merge suggested',
  merged: 'Merged into',
  entity: 'Mention the same entity',
  tag: 'Share a tag',
};

/** The kind of a memory-view edge (GraphEdge.kind in src/engine/protocol.ts). */
export function memoryEdgeKind(kind: string): EdgeKind {
  if (kind === 'similar' || kind === 'merged') return kind;
  if (kind.startsWith('entity:')) return 'entity';
  if (kind.startsWith('shared_tag:')) return 'tag';
  return 'link';
}

/** Label font size (px at zoom 1) and the smallest on-screen size drawn: below it labels hide (zoomed out). */
export const LABEL_FONT = 11;
const MIN_READABLE = 8;
/** Below this zoom the labels are too small to draw (min-zoomed-font-size). */
export const LABELS_READABLE_ZOOM = MIN_READABLE / LABEL_FONT;

function edgeKindStyles(t: GraphTheme): cytoscape.StylesheetJson {
  const arrow = (colour: string) => ({
    'curve-style': 'straight',
    'target-arrow-shape': 'triangle',
    'target-arrow-color': colour,
    'arrow-scale': 0.8,
  });
  return [
    { selector: 'edge.relation', style: { 'line-color': t.edge, ...arrow(t.edge) } },
    { selector: 'edge.link', style: { 'line-color': t.muted, ...arrow(t.muted) } },
    { selector: 'edge.similar', style: { 'line-color': t.palette[5]!, 'line-style': 'dashed', opacity: 0.8 } },
    {
      selector: 'edge.merged',
      style: { 'line-color': t.palette[3]!, 'line-style': 'dotted', width: 2, opacity: 0.9, ...arrow(t.palette[3]!) },
    },
    { selector: 'edge.entity', style: { 'line-color': t.palette[2]!, opacity: 0.6 } },
    { selector: 'edge.tag', style: { 'line-color': t.muted, 'line-style': 'dashed', opacity: 0.7, width: 1 } },
  ] as cytoscape.StylesheetJson;
}

export function graphStyles(t: GraphTheme): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node',
      style: {
        'background-color': t.foreground,
        width: 'data(size)',
        height: 'data(size)',
        label: 'data(short)',
        color: t.foreground,
        'font-size': LABEL_FONT,
        'font-family': t.fontFamily,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        // Labels appear once zoomed in far enough to read them: thousands of labels are noise and slow.
        'min-zoomed-font-size': MIN_READABLE,
        'text-outline-color': t.background,
        'text-outline-width': 2,
        // A label sits on a patch of background: an edge passing behind it does not cross the words.
        'text-background-color': t.background,
        'text-background-opacity': 0.85,
        'text-background-padding': '1px',
        'text-background-shape': 'roundrectangle',
        'border-width': 1,
        'border-color': t.background,
      },
    },
    // One class per palette colour, not a function: cytoscape caches class styles, not functions.
    ...t.palette.map((colour, i) => ({ selector: `node.c${i}`, style: { 'background-color': colour } })),
    // A memory absorbed by a merge: hollow, dashed, its label muted.
    {
      selector: 'node.merged',
      style: { 'background-opacity': 0.15, 'border-width': 2, 'border-style': 'dashed', 'border-color': t.muted, color: t.muted },
    },
    {
      selector: 'edge',
      style: { width: 'data(width)', 'line-color': t.edge, opacity: 0.6, 'curve-style': 'haystack' },
    },
    ...edgeKindStyles(t),
    {
      selector: 'edge.focus',
      style: {
        label: 'data(label)',
        'font-size': 10,
        color: t.muted,
        'text-rotation': 'autorotate',
        'text-outline-color': t.background,
        'text-outline-width': 2,
        opacity: 1,
        width: 2,
      },
    },
    { selector: 'node.focus', style: { 'min-zoomed-font-size': 0, 'z-index': 10 } },
    { selector: 'node.hidden-by-filter', style: { display: 'none' } },
    {
      selector: 'node:selected, node.kbd',
      style: {
        'border-width': 3,
        'border-style': 'solid',
        'border-color': t.focus,
        // A second ring in the text colour, apart from the node: the focus shows on a node of the focus colour too.
        'outline-width': 2,
        'outline-color': t.foreground,
        'outline-offset': 2,
        'outline-opacity': 1,
        'min-zoomed-font-size': 0,
        'font-weight': 'bold',
        'z-index': 20,
      },
    },
    { selector: '.faded', style: { opacity: t.fadedOpacity } },
  ] as cytoscape.StylesheetJson;
}
