/** Knowledge graph: canonical entities, mention counts, running-average confidence, idempotency, provenance GC, graph boost, read views. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { writeMemoryGraph } from '../../../src/core/graph/persist';
import { collectDeletedMemoryGraphs, removeMemoryGraph } from '../../../src/core/graph/gc';
import { getGraphBoostIds, graphQueryTokens } from '../../../src/core/graph/boost';
import { entityMemories, entityNeighbours, listEntities } from '../../../src/core/graph/read';

async function setup() {
  const store = await openPipelineStore(tmpDir('am-graph-'));
  const svc = new MemoryService(store, { projectId: 'p' });
  const mem = (content: string) => {
    const r = svc.create({ content, allowNearDuplicate: true });
    assert.equal(r.status, 'created');
    return (r as { memory: { id: string } }).memory.id;
  };
  const write = (
    id: string,
    triples: { source: string; relationship: string; target: string; confidence: number; sourceType?: string; targetType?: string }[],
  ) => store.transaction((tx) => writeMemoryGraph(tx, id, triples, new Date().toISOString()));
  const snapshot = () => ({
    entities: store.all('SELECT name, canonical_name, mentions FROM entities ORDER BY canonical_name'),
    relations: store.all(
      `SELECT s.canonical_name AS s, r.relation_type AS t, d.canonical_name AS d, r.mentions, round(r.confidence, 6) AS c, r.strength
       FROM relations r JOIN entities s ON s.id = r.source_entity_id JOIN entities d ON d.id = r.target_entity_id ORDER BY s, t, d`,
    ),
    mentions: store.all('SELECT memory_id, entity_id, mention_text FROM memory_entity_mentions ORDER BY memory_id, entity_id'),
    prov: store.all('SELECT memory_id, relation_id FROM memory_relation_provenance ORDER BY memory_id, relation_id'),
  });
  return { store, svc, mem, write, snapshot };
}

test('entities by canonical name, mentions per memory, running-average relation confidence, strength 1.0', async () => {
  const { store, mem, write } = await setup();
  const a = mem('The API server uses Fastify for routing requests.');
  const b = mem('Fastify powers the API server since the migration.');
  write(a, [{ source: 'API  Server', relationship: 'uses', target: 'Fastify', confidence: 0.9 }]);
  write(b, [{ source: 'api server', relationship: 'Uses', target: 'fastify', confidence: 0.5 }]);
  const ents = store.all<{ name: string; canonical_name: string; mentions: number }>(
    'SELECT name, canonical_name, mentions FROM entities ORDER BY canonical_name',
  );
  assert.deepEqual(
    ents.map((e) => [e.name, e.canonical_name, Number(e.mentions)]),
    [
      ['API Server', 'api server', 2],
      ['Fastify', 'fastify', 2],
    ],
  );
  const rel = store.get<{ mentions: number; confidence: number; strength: number }>(
    'SELECT mentions, confidence, strength FROM relations',
  )!;
  assert.equal(Number(rel.mentions), 2);
  assert.ok(Math.abs(Number(rel.confidence) - 0.7) < 1e-9, `(0.9 + 0.5) / 2, got ${rel.confidence}`);
  assert.equal(Number(rel.strength), 1);
  const mentionTexts = store
    .all<{ mention_text: string }>('SELECT mention_text FROM memory_entity_mentions ORDER BY mention_text')
    .map((r) => r.mention_text);
  assert.deepEqual(mentionTexts, ['API  Server', 'Fastify', 'api server', 'fastify'], 'raw mention text kept before canonicalization');
  await store.close();
});

test('entity types: stored when extracted, an unknown type filled in later, a known type never overwritten', async () => {
  const { store, mem, write } = await setup();
  const a = mem('The API server uses Fastify for routing requests.');
  const b = mem('Alice maintains the API server and chose Fastify.');
  write(a, [{ source: 'API server', relationship: 'uses', target: 'Fastify', confidence: 0.9, targetType: 'library' }]);
  const types = () =>
    Object.fromEntries(
      store
        .all<{ canonical_name: string; entity_type: string }>('SELECT canonical_name, entity_type FROM entities')
        .map((r) => [r.canonical_name, r.entity_type]),
    );
  assert.deepEqual(types(), { 'api server': 'unknown', fastify: 'library' });
  write(b, [
    { source: 'Alice', relationship: 'maintains', target: 'API server', confidence: 0.8, sourceType: 'person', targetType: 'service' },
    { source: 'Alice', relationship: 'chose', target: 'Fastify', confidence: 0.8, sourceType: 'person', targetType: 'tool' },
  ]);
  assert.deepEqual(types(), { alice: 'person', 'api server': 'service', fastify: 'library' });
  await store.close();
});

test('re-processing the same memory is idempotent', async () => {
  const { store, mem, write, snapshot } = await setup();
  const a = mem('Redis caches sessions for the web tier and the API.');
  const b = mem('The API reads sessions from Redis.');
  const triples = [
    { source: 'Redis', relationship: 'caches', target: 'sessions', confidence: 0.8 },
    { source: 'API', relationship: 'reads', target: 'Redis', confidence: 0.6 },
  ];
  write(a, triples);
  write(b, [{ source: 'API', relationship: 'reads', target: 'Redis', confidence: 1 }]);
  const once = snapshot();
  write(a, triples);
  write(a, triples);
  assert.deepEqual(snapshot(), once);
  await store.close();
});

test('GC on delete: shared entities and relations survive, orphans go; content change replaces provenance', async () => {
  const { store, svc, mem, write, snapshot } = await setup();
  const a = mem('Postgres stores orders and Kafka streams order events.');
  const b = mem('The billing service writes invoices to Postgres.');
  write(a, [
    { source: 'Postgres', relationship: 'stores', target: 'orders', confidence: 0.9 },
    { source: 'Kafka', relationship: 'streams', target: 'order events', confidence: 0.8 },
  ]);
  write(b, [{ source: 'billing service', relationship: 'writes to', target: 'Postgres', confidence: 0.7 }]);
  // Soft delete through the memory API, then GC.
  svc.delete(a);
  const r = collectDeletedMemoryGraphs(store, new Date());
  assert.deepEqual(r, { memories: 1, entities: 3, relations: 2 });
  const s = snapshot();
  assert.deepEqual(
    (s.entities as any[]).map((e) => [e.canonical_name, Number(e.mentions)]),
    [
      ['billing service', 1],
      ['postgres', 1],
    ],
  );
  assert.equal(s.relations.length, 1);
  assert.equal((s.relations[0] as any).t, 'writes_to');
  // Content change of b: its new triples replace the old ones; the dropped entity goes.
  write(b, [{ source: 'billing service', relationship: 'writes to', target: 'ClickHouse', confidence: 0.9 }]);
  const s2 = snapshot();
  assert.deepEqual(
    (s2.entities as any[]).map((e) => e.canonical_name),
    ['billing service', 'clickhouse'],
  );
  assert.equal(s2.relations.length, 1);
  // Legacy rows without provenance are never collected.
  store.transaction((tx) =>
    tx.run(
      `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at) VALUES ('legacy', 'Legacy', 'legacy', 'unknown', 0, 'x', 'x')`,
    ),
  );
  store.transaction((tx) => removeMemoryGraph(tx, b, new Date().toISOString()));
  assert.deepEqual(
    store.all<{ id: string }>('SELECT id FROM entities').map((e) => e.id),
    ['legacy'],
  );
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM relations')!.n, 0);
  await store.close();
});

test('graph boost: token match, one hop, live memories only, caps, deadline → timedOut, exceptions → empty', async () => {
  const { store, svc, mem, write } = await setup();
  const a = mem('Checkout uses Stripe for card payments.');
  const b = mem('Stripe webhooks are verified with a signing secret.');
  const c = mem('The signing secret rotates every quarter.');
  const d = mem('Unrelated: the office plant needs water weekly.');
  write(a, [{ source: 'checkout', relationship: 'uses', target: 'Stripe', confidence: 0.9 }]);
  write(b, [{ source: 'Stripe webhooks', relationship: 'verified with', target: 'signing secret', confidence: 0.9 }]);
  write(c, [{ source: 'signing secret', relationship: 'rotates', target: 'quarterly schedule', confidence: 0.7 }]);
  write(d, [{ source: 'office plant', relationship: 'needs', target: 'water', confidence: 0.9 }]);
  assert.deepEqual(graphQueryTokens('How is Checkout paid? a b c'), ['how', 'is', 'checkout', 'paid']);
  const r = getGraphBoostIds(store, 'checkout payments');
  assert.equal(r.timedOut, false);
  // "checkout" matches entity checkout; one hop reaches stripe; memories mentioning either: a.
  assert.deepEqual(new Set(r.memoryIds), new Set([a]));
  const r2 = getGraphBoostIds(store, 'signing');
  assert.deepEqual(new Set(r2.memoryIds), new Set([b, c]));
  svc.delete(b);
  assert.deepEqual(getGraphBoostIds(store, 'signing').memoryIds, [c], 'tombstoned memories are not boosted');
  assert.deepEqual(getGraphBoostIds(store, '?! a').memoryIds, []);
  // Deadline passed after step 1: partial result flagged.
  let t = 0;
  const slow = getGraphBoostIds(store, 'checkout', { deadline: 5, now: () => (t += 10) });
  assert.equal(slow.timedOut, true);
  assert.deepEqual(slow.memoryIds, []);
  assert.ok(slow.entityIds.length >= 1);
  const broken = getGraphBoostIds(
    {
      all: () => {
        throw new Error('db gone');
      },
    },
    'checkout',
  );
  assert.deepEqual(broken, { memoryIds: [], entityIds: [], timedOut: false });
  await store.close();
});

test('graph boost caps: 20 entity hits by mentions, ≤ 200 memories', async () => {
  const { store, mem, write } = await setup();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const id = mem(`Service number ${i} depends on the shared gateway component ${i}.`);
    ids.push(id);
    write(id, [{ source: `gateway ${i}`, relationship: 'serves', target: `service ${i}`, confidence: 0.5 }]);
  }
  const r = getGraphBoostIds(store, 'gateway');
  // 20 gateway entities + their 20 service neighbours.
  assert.equal(r.entityIds.length, 40);
  assert.equal(r.memoryIds.length, 20);
  await store.close();
});

test('read views: top entities, search, neighbours both directions, memories of an entity', async () => {
  const { store, mem, write } = await setup();
  const a = mem('The frontend calls the GraphQL gateway for data.');
  const b = mem('The GraphQL gateway forwards to the users service.');
  write(a, [{ source: 'frontend', relationship: 'calls', target: 'GraphQL gateway', confidence: 0.9 }]);
  write(b, [{ source: 'GraphQL gateway', relationship: 'forwards to', target: 'users service', confidence: 0.8 }]);
  const top = listEntities(store, { limit: 1 });
  assert.equal(top[0]!.canonicalName, 'graphql gateway');
  assert.equal(top[0]!.mentions, 2);
  assert.deepEqual(
    listEntities(store, { search: 'USERS' }).map((e) => e.name),
    ['users service'],
  );
  assert.deepEqual(listEntities(store, { search: '%' }), []);
  const n = entityNeighbours(store, top[0]!.id);
  assert.deepEqual(n.map((x) => [x.entity.canonicalName, x.direction, x.relationType]).sort(), [
    ['frontend', 'in', 'calls'],
    ['users service', 'out', 'forwards_to'],
  ]);
  assert.deepEqual(new Set(entityMemories(store, top[0]!.id).map((m) => m.id)), new Set([a, b]));
  await store.close();
});
