// The graph panel's overlap pass (webview/lib/graphLayout.ts) on a real cytoscape (headless):
// nodes piled on each other end with no two boxes overlapping, by pushing apart (small graphs)
// or one grid cell each (big ones), close to where they were.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import cytoscape from 'cytoscape';
import { removeOverlaps, SMALL_GRAPH } from '../../../webview/lib/graphLayout';

/** `n` 30-px nodes at random points of a `spread`-px square (0: all on one point). */
function piled(n: number, spread: number): cytoscape.Core {
  let seed = 7;
  const rnd = () => (seed = (seed * 1664525 + 1013904223) % 4294967296) / 4294967296;
  return cytoscape({
    headless: true,
    styleEnabled: true,
    layout: { name: 'preset' },
    style: [{ selector: 'node', style: { width: 30, height: 30 } }],
    elements: Array.from({ length: n }, (_, i) => ({ data: { id: `n${i}` }, position: { x: rnd() * spread, y: rnd() * spread } })),
  });
}

function overlaps(cy: cytoscape.Core): number {
  const boxes = cy.nodes().map((n) => n.boundingBox({ includeLabels: true }));
  let count = 0;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!,
        b = boxes[j]!;
      if (Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 0.01 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 0.01) count++;
    }
  return count;
}

test('a small pile is pushed apart: no overlap left, nodes stay near where they were', () => {
  for (const spread of [60, 0]) {
    const cy = piled(20, spread);
    const before = new Map(cy.nodes().map((n) => [n.id(), { ...n.position() }]));
    assert.ok(overlaps(cy) > 0);
    assert.equal(removeOverlaps(cy), 0);
    assert.equal(overlaps(cy), 0, `spread ${spread}`);
    for (const n of cy.nodes()) {
      const p = before.get(n.id())!;
      const moved = Math.hypot(n.position().x - p.x, n.position().y - p.y);
      assert.ok(moved < 200, `spread ${spread}: ${n.id()} moved ${Math.round(moved)} px`);
    }
    cy.destroy();
  }
});

test('a big dense pile gets one grid cell per node: no overlap left', () => {
  const cy = piled(SMALL_GRAPH + 250, 200);
  assert.equal(removeOverlaps(cy), 0);
  assert.equal(overlaps(cy), 0);
  cy.destroy();
});

test('nothing to do: an empty graph and a single node', () => {
  const none = piled(0, 10);
  assert.equal(removeOverlaps(none), 0);
  const one = piled(1, 10);
  const p = { ...one.nodes()[0]!.position() };
  assert.equal(removeOverlaps(one), 0);
  assert.deepEqual(one.nodes()[0]!.position(), p);
  none.destroy();
  one.destroy();
});
