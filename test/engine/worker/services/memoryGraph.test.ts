// The graph panel's memory view (src/engine/worker/services/memoryGraph.ts + memoryGraphLinks.ts) on a
// real store: pending consolidation suggestions become 'similar' edges, an accepted merge a
// 'merged' edge to the absorbed memory (drawn as a tombstone node), an empty store an empty
// graph, and labels are cut on grapheme boundaries.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryEngine, storeFolderName } from '../../../../src/engine/worker/engine';
import { Store } from '../../../../src/core/store/store';
import { truncateFlat as graphemeCut } from '../../../../src/core/text/truncate';
import { engineDirs } from '../../harness';

const HASH = { 'embedding.provider': 'hash' };

async function open(dirs: ReturnType<typeof engineDirs>) {
  return MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: HASH });
}

async function createdId(engine: MemoryEngine, content: string): Promise<string> {
  const r = await engine.memories.create({ content });
  assert.equal(r.status, 'created', JSON.stringify(r));
  return r.status === 'created' ? r.memory.id : '';
}

/** Three unrelated memories and two pending suggestions written the way the scanner writes them. */
async function withSuggestions() {
  const dirs = engineDirs();
  const first = await open(dirs);
  const a = await createdId(first, 'Redis runs on port 6379 in development.');
  const b = await createdId(first, 'In dev, the cache (Redis) listens on 6379.');
  const c = await createdId(first, 'Postgres 16 is required for the pgvector migration.');
  const projectId = first.projectId;
  await first.close();
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  store.transaction((tx) => {
    for (const [id, x, y, sim] of [
      ['s1', a, b, 0.88],
      ['s2', a, c, 0.76],
    ] as const) {
      tx.run(
        `INSERT INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
        [id, x, y, sim, projectId, new Date().toISOString()],
      );
    }
  });
  await store.close();
  return { engine: await open(dirs), dirs, projectId, a, b, c };
}

const kinds = (edges: { from: string; to: string; kind: string }[], kind: string) =>
  edges.filter((e) => e.kind === kind).map((e) => [e.from, e.to, kind]);

test('memory view: pending similarity suggestions are drawn as similar edges, strength = similarity', async () => {
  const { engine, a, b, c } = await withSuggestions();
  try {
    const g = engine.graph.memories({});
    assert.equal(g.nodes.length, 3);
    assert.deepEqual(kinds(g.edges, 'similar'), [
      [a, b, 'similar'],
      [a, c, 'similar'],
    ]);
    assert.deepEqual(
      g.edges.filter((e) => e.kind === 'similar').map((e) => e.strength),
      [0.88, 0.76],
    );
    // Centred on c, the suggestion partner a is part of its neighbourhood.
    const centred = engine.graph.memories({ centerId: c });
    assert.deepEqual(centred.nodes.map((n) => n.id).sort(), [a, c].sort());
    assert.deepEqual(kinds(centred.edges, 'similar'), [[a, c, 'similar']]);
    // A rejected suggestion is no longer a relation.
    engine.suggestions.reject('s2');
    assert.deepEqual(kinds(engine.graph.memories({}).edges, 'similar'), [[a, b, 'similar']]);
  } finally {
    await engine.close();
  }
});

test('memory view: an accepted merge is a merged edge to the absorbed memory, drawn as a tombstone node', async () => {
  const { engine, a, b, c } = await withSuggestions();
  try {
    await engine.suggestions.accept('s1');
    const g = engine.graph.memories({});
    const absorbed = g.nodes.find((n) => n.id === b);
    assert.ok(absorbed, 'the absorbed memory is drawn');
    assert.equal(absorbed.mergedInto, a, 'as merged into the survivor');
    assert.equal(g.nodes.find((n) => n.id === a)?.mergedInto, undefined, 'the survivor is a live memory');
    assert.deepEqual(kinds(g.edges, 'merged'), [[a, b, 'merged']]);
    assert.deepEqual(kinds(g.edges, 'similar'), [[a, c, 'similar']], 'the accepted suggestion is no longer pending, the other one is');
    // Live memories are what the limit counts; the tombstone comes with its survivor.
    assert.equal(g.nodes.filter((n) => !n.mergedInto).length, 2);
    // A survivor outside the shown set brings no tombstone.
    const other = engine.graph.memories({ limit: 1 });
    assert.deepEqual(
      other.nodes.map((n) => n.id),
      [other.nodes[0]!.id],
    );
    assert.notEqual(other.nodes[0]!.id, a);
  } finally {
    await engine.close();
  }
});

test('memory view: a malformed merged history row is ignored, not a crash', async () => {
  const { engine, dirs, projectId, a } = await withSuggestions();
  await engine.close();
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  store.transaction((tx) => {
    for (const [id, meta] of [
      ['h1', '{not json'],
      ['h2', JSON.stringify({ absorbed: 'not-a-list' })],
      ['h3', JSON.stringify({ absorbed: [42, a, 'no-such-memory'] })],
    ]) {
      tx.run(`INSERT INTO memory_history (id, memory_id, event, metadata_json, created_at) VALUES (?, ?, 'merged', ?, ?)`, [
        id,
        a,
        meta,
        new Date().toISOString(),
      ]);
    }
  });
  await store.close();
  const reopened = await open(dirs);
  try {
    const g = reopened.graph.memories({});
    assert.equal(g.nodes.length, 3, 'the three live memories, no node for an unknown id');
    assert.ok(g.nodes.every((n) => n.mergedInto === undefined));
    assert.deepEqual(kinds(g.edges, 'merged'), [], 'no edge to itself or to a memory that does not exist');
  } finally {
    await reopened.close();
  }
});

test('memory view of an empty store: no nodes, no edges', async () => {
  const engine = await open(engineDirs());
  try {
    assert.deepEqual(engine.graph.memories({}), { nodes: [], edges: [], truncated: false });
    const v = engine.graph.view({ mode: 'memories' });
    assert.equal(v.mode, 'memories');
    assert.equal(v.nodes.length, 0);
  } finally {
    await engine.close();
  }
});

test('node labels: whitespace collapsed, cut on grapheme boundaries (no half emoji), full text kept up to 200', async () => {
  assert.equal(graphemeCut('a\n\n b', 10), 'a b');
  const family = '👨‍👩‍👧‍👦';
  const cut = graphemeCut(`${family.repeat(5)}`, 3);
  assert.equal(cut, `${family.repeat(2)}…`);
  assert.doesNotMatch(cut, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone high surrogate');
  assert.equal(graphemeCut('e\u0301'.repeat(4), 4), 'e\u0301'.repeat(4), 'exactly max graphemes: not cut');
  const engine = await open(engineDirs());
  try {
    const long = `${'Deploys go through the release train every Tuesday. '.repeat(10)}🚂`;
    await createdId(engine, long);
    const [node] = engine.graph.memories({}).nodes;
    assert.ok(node);
    const graphemes = [...new Intl.Segmenter().segment(node.label)].length;
    assert.ok(graphemes >= 190 && graphemes <= 200, `${graphemes} graphemes`);
    assert.ok(node.label.endsWith('…'));
    assert.ok(node.label.startsWith('Deploys go through the release train every Tuesday. Deploys'));
  } finally {
    await engine.close();
  }
});
