// The graph panel's engine side: graph.query over the knowledge graph (entities, relations,
// mentions written by src/core/graph/persist.ts writeMemoryGraph on a real store), its filters,
// the memory-view fallback with its notice, and graph.entityMemories — directly and through
// the worker thread's RPC.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryEngine, storeFolderName } from '../../src/engine/engine';
import { EngineError } from '../../src/engine/errors';
import { Store } from '../../src/core/store/store';
import { writeMemoryGraph, type Triple } from '../../src/core/graph/persist';
import type { EntityGraphData, GraphParams, GraphView } from '../../src/engine/protocol';
import { createHandlers } from '../../src/engine/handlers';
import { engineDirs, startClient } from './harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const NO_CALL = { signal: new AbortController().signal, progress: () => undefined };
/** graph.query as the protocol answers it (the handler checks the params). */
async function graphQuery(engine: MemoryEngine, params: GraphParams): Promise<GraphView> {
  return (await handlers['graph.query'](engine, params, NO_CALL)) as GraphView;
}

const GRAPH_ON = { 'embedding.provider': 'hash', 'memory.pipelineV2.graphEnabled': true };

function entitiesOf(v: GraphView): EntityGraphData {
  assert.equal(v.mode, 'entities', `expected the entity view, got ${JSON.stringify(v).slice(0, 300)}`);
  return v as EntityGraphData;
}

const names = (v: EntityGraphData) => v.nodes.map((n) => n.name).sort();

/**
 * Three memories, their triples written by the core's graph writer (what the pipeline does),
 * then entity types assigned. Returns the engine reopened on that store, and the memory ids.
 */
async function seeded(settings: Record<string, unknown> = GRAPH_ON) {
  const dirs = engineDirs();
  const first = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: GRAPH_ON });
  const ids: string[] = [];
  for (const content of [
    'The API gateway uses Redis for rate limiting; Redis runs on port 6379.',
    'The billing service depends on Postgres and calls the API gateway.',
    'Old note: the API gateway used Memcached before Redis.',
  ]) {
    const r = await first.memories.create({ content });
    assert.equal(r.status, 'created');
    if (r.status === 'created') ids.push(r.memory.id);
  }
  const projectId = first.projectId;
  await first.close();

  const triples: Triple[][] = [
    [{ source: 'API Gateway', relationship: 'uses', target: 'Redis', confidence: 0.9 }],
    [
      { source: 'Billing Service', relationship: 'depends on', target: 'Postgres', confidence: 0.8 },
      { source: 'Billing Service', relationship: 'calls', target: 'API Gateway', confidence: 0.7 },
    ],
    [
      { source: 'API Gateway', relationship: 'used', target: 'Memcached', confidence: 0.6 },
      { source: '<img src=x onerror=alert(1)>', relationship: 'mentions', target: 'Redis', confidence: 0.5 },
    ],
  ];
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  const now = new Date().toISOString();
  store.transaction((tx) => {
    triples.forEach((t, i) => writeMemoryGraph(tx, ids[i]!, t, now));
    // The writer creates entities as 'unknown'; extraction assigns types. Here: by hand.
    for (const [name, type] of [
      ['API Gateway', 'service'],
      ['Billing Service', 'service'],
      ['Redis', 'technology'],
      ['Postgres', 'technology'],
      ['Memcached', 'technology'],
    ]) {
      tx.run('UPDATE entities SET entity_type = ? WHERE name = ?', [type, name]);
    }
  });
  await store.close();
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings });
  return { engine, ids, dirs };
}

test('graph.query: entities with types and mentions, relations among them, the type list', async () => {
  const { engine } = await seeded();
  try {
    const g = entitiesOf(await graphQuery(engine, {}));
    assert.deepEqual(names(g), ['<img src=x onerror=alert(1)>', 'API Gateway', 'Billing Service', 'Memcached', 'Postgres', 'Redis']);
    assert.equal(g.totalEntities, 6);
    assert.equal(g.truncated, false);
    const byName = new Map(g.nodes.map((n) => [n.name, n]));
    assert.equal(byName.get('API Gateway')!.mentions, 3, 'mentioned by all three memories');
    assert.equal(byName.get('Redis')!.mentions, 2);
    assert.equal(byName.get('Redis')!.type, 'technology');
    assert.equal(g.nodes[0]!.name, 'API Gateway', 'most mentioned first');
    const rel = (from: string, to: string) => g.edges.find((e) => e.from === byName.get(from)!.id && e.to === byName.get(to)!.id);
    assert.equal(g.edges.length, 5);
    assert.equal(rel('API Gateway', 'Redis')!.type, 'uses');
    assert.equal(rel('Billing Service', 'Postgres')!.type, 'depends_on');
    assert.equal(rel('Billing Service', 'Postgres')!.confidence, 0.8);
    assert.equal(rel('Billing Service', 'Postgres')!.mentions, 1);
    assert.deepEqual(g.types, [
      { type: 'technology', count: 3 },
      { type: 'service', count: 2 },
      { type: 'unknown', count: 1 },
    ]);
  } finally {
    await engine.close();
  }
});

test('graph.query filters: entity types, minimum mentions, name search, limit; edges only between shown entities', async () => {
  const { engine } = await seeded();
  try {
    const tech = entitiesOf(await graphQuery(engine, { entityTypes: ['technology'] }));
    assert.deepEqual(names(tech), ['Memcached', 'Postgres', 'Redis']);
    assert.deepEqual(tech.edges, [], 'no relation joins two technologies');
    assert.equal(tech.totalEntities, 6, 'the total is the whole graph');

    const services = entitiesOf(await graphQuery(engine, { entityTypes: ['service', 'technology'], minMentions: 2 }));
    assert.deepEqual(names(services), ['API Gateway', 'Redis'], 'Billing Service has one mention');
    assert.deepEqual(
      services.edges.map((e) => e.type),
      ['uses'],
    );
    const both = entitiesOf(await graphQuery(engine, { entityTypes: ['service'] }));
    assert.deepEqual(
      both.edges.map((e) => e.type),
      ['calls'],
    );

    assert.deepEqual(names(entitiesOf(await graphQuery(engine, { minMentions: 3 }))), ['API Gateway']);
    assert.deepEqual(
      names(entitiesOf(await graphQuery(engine, { search: '  api  GATE' }))),
      ['API Gateway'],
      'case and spaces as in canonical names',
    );
    assert.deepEqual(names(entitiesOf(await graphQuery(engine, { search: '100%' }))), [], 'LIKE wildcards are literal');
    assert.deepEqual(names(entitiesOf(await graphQuery(engine, { search: '<img' }))), ['<img src=x onerror=alert(1)>']);

    const top2 = entitiesOf(await graphQuery(engine, { limit: 2 }));
    assert.equal(top2.nodes.length, 2);
    assert.equal(top2.truncated, true);
    assert.deepEqual(names(top2), ['API Gateway', 'Redis']);
    assert.deepEqual(
      top2.edges.map((e) => e.type),
      ['uses'],
    );

    await assert.rejects(
      graphQuery(engine, { mode: 'both' as never }),
      (e: unknown) => e instanceof EngineError && e.code === 'invalid_input',
    );
    await assert.rejects(
      graphQuery(engine, { minMentions: 'two' as never }),
      (e: unknown) => e instanceof EngineError && e.code === 'invalid_input',
    );

    const memories = await graphQuery(engine, { mode: 'memories' });
    assert.equal(memories.mode, 'memories');
    assert.equal(memories.nodes.length, 3);
    assert.equal((memories as { notice?: string }).notice, undefined, 'asked for: no notice');
  } finally {
    await engine.close();
  }
});

test('graph.entityMemories: the memories mentioning an entity, newest first; deleted ones leave; unknown id is not_found', async () => {
  const { engine, ids } = await seeded();
  try {
    const g = entitiesOf(await graphQuery(engine, {}));
    const id = (name: string) => g.nodes.find((n) => n.name === name)!.id;
    const redis = engine.graph.entityMemories(id('Redis'));
    assert.equal(redis.entity.name, 'Redis');
    assert.equal(redis.entity.type, 'technology');
    assert.deepEqual(redis.memories.map((m) => m.id).sort(), [ids[0], ids[2]].sort());
    const m0 = redis.memories.find((m) => m.id === ids[0])!;
    assert.match(m0.preview, /^The API gateway uses Redis for rate limiting/);
    assert.equal(m0.type, 'general');
    assert.equal(m0.mentionText, 'Redis');

    assert.deepEqual(
      engine.graph.entityMemories(id('Postgres')).memories.map((m) => m.id),
      [ids[1]],
    );
    engine.memories.delete(ids[1]!);
    assert.deepEqual(engine.graph.entityMemories(id('Postgres')).memories, [], 'a deleted memory is not listed');
    assert.throws(
      () => engine.graph.entityMemories('no-such-entity'),
      (e: unknown) => e instanceof EngineError && e.code === 'not_found',
    );
  } finally {
    await engine.close();
  }
});

test('graph.query falls back to the memory view, saying why, when graphEnabled is off or the graph is empty', async () => {
  const off = await seeded({ 'embedding.provider': 'hash' });
  try {
    const v = await graphQuery(off.engine, {});
    assert.equal(v.mode, 'memories');
    assert.equal(v.nodes.length, 3, 'the memories are still drawn');
    assert.match((v as { notice?: string }).notice ?? '', /turn on the pipeline and its Knowledge Graph setting to extract the entities/);
  } finally {
    await off.engine.close();
  }
  const empty = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: GRAPH_ON });
  try {
    await empty.memories.create({ content: 'A memory without any extracted entity yet, in a fresh store.' });
    const v = await graphQuery(empty, {});
    assert.equal(v.mode, 'memories');
    assert.equal(v.nodes.length, 1);
    assert.match(
      (v as { notice?: string }).notice ?? '',
      /^The knowledge graph is empty: turn on the pipeline and its Knowledge Graph setting to extract the entities/,
    );
  } finally {
    await empty.close();
  }
});

test('graph.query at 3,000 entities and 6,000 relations (limit 5,000 cap; time printed, not asserted)', async () => {
  const dirs = engineDirs();
  const first = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: GRAPH_ON });
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await first.memories.create({ content: `Service number ${i} talks to a set of components described in note ${i * 7919}.` });
    if (r.status === 'created') ids.push(r.memory.id);
  }
  assert.equal(ids.length, 30);
  const projectId = first.projectId;
  await first.close();
  const store = await Store.open({ dir: path.join(dirs.storageDir, 'projects', storeFolderName(projectId)) });
  const now = new Date().toISOString();
  // 30 memories × 200 triples over 3,000 entities: entity k appears in memories k%30 and (k+1)%30.
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  store.transaction((tx) => {
    ids.forEach((id, m) => {
      const triples: Triple[] = [];
      for (let j = 0; j < 200; j++) {
        const a = m * 100 + (j % 100);
        const b = rnd(3000);
        triples.push({
          source: `Component ${a}`,
          relationship: j % 2 ? 'uses' : 'calls',
          target: `Component ${b === a ? (b + 1) % 3000 : b}`,
          confidence: 0.8,
        });
      }
      writeMemoryGraph(tx, id, triples, now);
    });
  });
  await store.close();
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: GRAPH_ON });
  try {
    const t0 = performance.now();
    const g = entitiesOf(await graphQuery(engine, { limit: 5000 }));
    const ms = performance.now() - t0;
    assert.equal(g.totalEntities, 3000);
    assert.equal(g.nodes.length, 3000);
    assert.ok(g.edges.length > 5500, `about 6,000 relations, got ${g.edges.length}`);
    console.log(`# graph.query: ${g.nodes.length} entities, ${g.edges.length} relations in ${ms.toFixed(0)} ms`);
    await assert.rejects(
      graphQuery(engine, { limit: 99999 }),
      (e: unknown) => (e as EngineError).code === 'invalid_input' && /from 1 to 5000/.test((e as Error).message),
      'the cap is 5,000: a larger limit is refused, naming the range',
    );
    assert.equal(entitiesOf(await graphQuery(engine, {})).nodes.length, 2000, 'default limit 2,000');
  } finally {
    await engine.close();
  }
});

test('graph.query and graph.entityMemories through the worker thread', async () => {
  const { engine, dirs } = await seeded();
  await engine.close();
  const client = startClient({ ...dirs, settings: GRAPH_ON });
  await client.start();
  try {
    const g = await client.request('graph.query', { entityTypes: ['service'] });
    const e = entitiesOf(g);
    assert.deepEqual(names(e), ['API Gateway', 'Billing Service']);
    const r = await client.request('graph.entityMemories', { entityId: e.nodes[0]!.id });
    assert.equal(r.entity.name, 'API Gateway');
    assert.equal(r.memories.length, 3);
    await assert.rejects(
      client.request('graph.entityMemories', {} as never),
      (err: unknown) => err instanceof EngineError && err.code === 'invalid_input',
    );
  } finally {
    await client.shutdown();
  }
});
