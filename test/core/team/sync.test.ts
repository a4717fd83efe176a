// @tier process
// Team memory replication against a real PostgreSQL 15 (docs/team.md): the versioned server
// schema made by an ordinary role, push with optimistic concurrency, pull in the server's order,
// idempotent apply, conflicts kept, content de-dup, deletes against edits, the secret guard.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPgCluster, type PgCluster, pgSkip } from '../../helpers/pgCluster';
import { openMemory } from '../../helpers/memoryFixture';
import type { CreateResult, MemoryRecord } from '../../../src/core/memory/types';
import { ensureServerSchema, projectSchema, SERVER_SCHEMA_VERSION } from '../../../src/core/team/serverSchema';
import { syncOnce, outgoing, type SyncContext } from '../../../src/core/team/sync';
import { pullChanges, pushChanges } from '../../../src/core/team/server';
import { machineIdOf, openConflicts, readBase, readCursors } from '../../../src/core/team/localState';
import { applyServerChange } from '../../../src/core/team/apply';
import { sharedOf, stateHash } from '../../../src/core/team/payload';
import { MemoryService } from '../../../src/core/memory/memoryService';

const skip = pgSkip();
let cluster: PgCluster;
const clients: pg.Client[] = [];
let schemaN = 0;

before(async () => {
  if (!skip) cluster = await startPgCluster();
});
after(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  cluster?.destroy();
});

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({
    host: cluster.host,
    port: cluster.port,
    user: cluster.user,
    password: cluster.password,
    database: cluster.database,
  });
  await c.connect();
  clients.push(c);
  return c;
}

function created(r: CreateResult): MemoryRecord {
  assert.equal(r.status, 'created', JSON.stringify(r));
  return (r as { memory: MemoryRecord }).memory;
}

const PROJECT = 'github.com/acme/app';

/** A machine: its own store on disk, its own connection, one schema shared by the test's machines. */
async function machine(schema: string, author: string) {
  const m = await openMemory({ projectId: PROJECT });
  const client = await connect();
  await ensureServerSchema(client, schema, PROJECT);
  const ctx: SyncContext = {
    store: m.store,
    client,
    schema,
    projectId: PROJECT,
    machine: machineIdOf(m.store, (fn) => m.store.transaction(fn)),
    author,
    now: m.clock.now,
  };
  return { ...m, ctx, sync: () => syncOnce(ctx) };
}

function freshSchema(): string {
  return `${projectSchema(PROJECT)}_${++schemaN}`;
}

test('the server schema is made by an ordinary role, versioned, made once, and refuses another project', { skip }, async () => {
  const c = await connect();
  const su = await c.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
  assert.equal(su.rows[0]!.rolsuper, false);
  const schema = freshSchema();
  const first = await ensureServerSchema(c, schema, PROJECT);
  assert.equal(first.created, true);
  assert.equal(first.version, SERVER_SCHEMA_VERSION);
  const again = await ensureServerSchema(c, schema, PROJECT);
  assert.equal(again.created, false);
  assert.equal(again.serverId, first.serverId);
  const versions = await c.query(`SELECT version FROM ${schema}.schema_version`);
  assert.equal(versions.rowCount, SERVER_SCHEMA_VERSION);
  await assert.rejects(ensureServerSchema(c, schema, 'github.com/other/thing'), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'team_wrong_project');
    return true;
  });
  await assert.rejects(ensureServerSchema(c, 'Robert"); drop table x; --', PROJECT), /lower-case letters/);
});

test('a memory made on one machine reaches another with its id, text, tags and author; an edit comes back', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const b = await machine(schema, 'ben');
  const m = created(a.svc.create({ content: 'Deploys go out from the release branch only, never from main.', tags: ['deploy'] }));
  const ra = await a.sync();
  assert.equal(ra.pushed, 1);
  assert.equal(ra.waiting, 0);
  const rb = await b.sync();
  assert.equal(rb.pulled, 1);
  const got = b.svc.get(m.id)!;
  assert.equal(got.content, m.content);
  assert.deepEqual(got.tags, ['deploy']);
  assert.equal(got.embeddingStatus, 'pending', 'each machine computes its own vector');
  assert.equal(readBase(b.store, m.id)!.author, 'ana');
  assert.equal(b.svc.history(m.id)[0]!.changedBy, 'team:ana');

  b.clock.advance(60_000);
  b.svc.update(m.id, { content: 'Deploys go out from the release branch only; hotfixes too.', who: 'ben' });
  const rb2 = await b.sync();
  assert.equal(rb2.pushed, 1);
  assert.equal(rb2.pulled, 0, 'its own change is not applied again');
  await a.sync();
  assert.equal(a.svc.get(m.id)!.content, 'Deploys go out from the release branch only; hotfixes too.');
  const hist = a.svc.history(m.id);
  assert.ok(
    hist.some((h) => h.newContent === m.content) && hist.some((h) => h.newContent?.includes('hotfixes')),
    'both versions in history',
  );
  // Nothing echoes: a third round moves nothing on either side.
  for (const x of [a, b]) {
    const r = await x.sync();
    assert.equal(r.pushed + r.pulled, 0, JSON.stringify(r));
  }
  const rows = await a.ctx.client.query(`SELECT count(*)::int AS n FROM ${schema}.changes`);
  assert.equal(rows.rows[0].n, 2);
});

test('a push sent again after its answer was lost is stored once; a page applied again changes nothing', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const b = await machine(schema, 'ben');
  created(a.svc.create({ content: 'The build cache lives in the shared bucket, keyed by lockfile hash.' }));
  const out = outgoing(a.ctx, 100);
  const first = await pushChanges(a.ctx.client, schema, a.ctx.machine, out.changes);
  // The answer is "lost": nothing recorded locally, so the next round sends the same change again.
  assert.equal(readCursors(a.store).pushedThrough, 0);
  const r = await a.sync();
  assert.equal(r.pushed, 1);
  assert.equal(first[0]!.status, 'accepted');
  const n = await a.ctx.client.query(`SELECT count(*)::int AS n FROM ${schema}.changes`);
  assert.equal(n.rows[0].n, 1);

  await b.sync();
  const before = b.store.get<{ n: number }>('SELECT count(*) AS n FROM memory_history')!.n;
  const page = await pullChanges(b.ctx.client, schema, 0, 100);
  b.store.transaction((tx) => {
    for (const ch of page.changes)
      assert.equal(applyServerChange(tx, { projectId: PROJECT, machine: b.ctx.machine }, ch, new Date().toISOString()), 'skipped');
  });
  assert.equal(b.store.get<{ n: number }>('SELECT count(*) AS n FROM memory_history')!.n, before);
  assert.equal(b.svc.count(), 1);
});

test('two edits of one memory: the first pushed wins, the other is a conflict kept with both versions in history', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const b = await machine(schema, 'ben');
  const m = created(a.svc.create({ content: 'Integration tests need the docker daemon running locally.' }));
  await a.sync();
  await b.sync();
  a.svc.update(m.id, { content: 'Integration tests need docker, or podman with the socket enabled.' });
  b.svc.update(m.id, { content: 'Integration tests run in CI only; locally use the unit suite.' });
  assert.equal((await a.sync()).pushed, 1);
  const rb = await b.sync();
  assert.equal(rb.stale, 1);
  assert.equal(rb.conflicts, 1);
  const conflicts = openConflicts(b.store);
  assert.equal(conflicts.length, 1);
  assert.equal(conflicts[0]!.memoryId, m.id);
  assert.equal(conflicts[0]!.serverAuthor, 'ana');
  assert.equal(conflicts[0]!.local.content, 'Integration tests run in CI only; locally use the unit suite.');
  assert.equal(b.svc.get(m.id)!.content, 'Integration tests need docker, or podman with the socket enabled.');
  const hist = b.svc.history(m.id).map((h) => h.newContent);
  assert.ok(hist.includes('Integration tests run in CI only; locally use the unit suite.'));
  assert.ok(hist.includes('Integration tests need docker, or podman with the socket enabled.'));
  // Both machines end on the same version, and the loser pushed nothing over it.
  await a.sync();
  assert.equal(stateHash(sharedOf(a.svc.get(m.id)!)), stateHash(sharedOf(b.svc.get(m.id)!)));
});

test('two creates of the same content become one memory on both machines', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const b = await machine(schema, 'ben');
  const text = 'Feature flags are read from the config service at start-up, not per request.';
  const ma = created(a.svc.create({ content: text }));
  const mb = created(b.svc.create({ content: text }));
  await a.sync();
  const rb = await b.sync();
  assert.equal(rb.duplicates, 1);
  assert.equal(b.svc.get(ma.id)!.content, text);
  const gone = b.svc.get(mb.id, { includeDeleted: true })!;
  assert.equal(gone.replacedBy, ma.id);
  assert.equal(b.svc.list({}).items.length, 1);
  await a.sync();
  assert.equal(a.svc.list({}).items.length, 1);
  const heads = await a.ctx.client.query(`SELECT count(*)::int AS n FROM ${schema}.heads WHERE NOT deleted`);
  assert.equal(heads.rows[0].n, 1);
});

test('a delete against an edit keeps the edit restorable; deletes are soft on every machine', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const b = await machine(schema, 'ben');
  const m = created(a.svc.create({ content: 'The payments sandbox resets every Sunday at midnight UTC.' }));
  await a.sync();
  await b.sync();
  a.svc.delete(m.id, { who: 'ana', reason: 'outdated' });
  b.svc.update(m.id, { content: 'The payments sandbox resets every Sunday and Wednesday at midnight UTC.' });
  await a.sync();
  const rb = await b.sync();
  assert.equal(rb.conflicts, 1);
  assert.ok(b.svc.get(m.id, { includeDeleted: true })!.deletedAt, 'the delete won by server order');
  assert.equal(openConflicts(b.store)[0]!.local.content, 'The payments sandbox resets every Sunday and Wednesday at midnight UTC.');
  // Restoring on b is an ordinary change, pushed on top of the delete, and reaches a.
  b.svc.restore(m.id, { who: 'ben' });
  assert.equal((await b.sync()).pushed, 1);
  await a.sync();
  assert.equal(a.svc.get(m.id)!.deletedAt, null);
});

test('a memory holding a credential stays on this machine and is reported', { skip }, async () => {
  const schema = freshSchema();
  const a = await machine(schema, 'ana');
  const { store } = a;
  const plain = created(a.svc.create({ content: 'The metrics dashboard is at the ops wiki under Observability.' }));
  // The store allows secrets here on purpose (policy allow): the team push must still hold it back.
  const allow = new MemoryService(store, { projectId: PROJECT, secretPolicy: 'allow' });
  const secret = created(
    allow.create({ content: 'Staging deploy key: AKIAIOSFODNN7EXAMPLF with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9' }),
  );
  const r = await a.sync();
  assert.deepEqual(r.heldBack, [secret.id]);
  const ids = await a.ctx.client.query<{ memory_id: string }>(`SELECT memory_id FROM ${schema}.changes`);
  assert.deepEqual(
    ids.rows.map((x) => x.memory_id),
    [plain.id],
  );
  const text = await a.ctx.client.query<{ t: string }>(`SELECT string_agg(memory::text, '') AS t FROM ${schema}.changes`);
  assert.ok(!text.rows[0]!.t.includes('AKIA'));
});
