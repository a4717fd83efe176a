import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { openMemory } from '../../helpers/memoryFixture';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { DuplicateContentError, NotFoundError, ValidationError, VersionConflictError } from '../../../src/core/memory/errors';
import type { CreateResult, MemoryRecord } from '../../../src/core/memory/types';

function created(r: CreateResult): MemoryRecord {
  assert.equal(r.status, 'created', JSON.stringify(r));
  return (r as { memory: MemoryRecord }).memory;
}

test('create stores normalized content, hashes, tags, provenance and a history row', async () => {
  const { svc, store } = await openMemory();
  const m = created(
    svc.create({
      content: '  We deploy   with blue-green\nswitching on Fridays.  ',
      title: 'Deploy  strategy',
      tags: [' Deploy', 'ops', 'deploy'],
      type: 'decision',
      source: 'unit-test',
      agentSource: 'copilot',
      decisions: ['blue-green'],
      rationale: ['zero downtime'],
      metadata: { ticket: 42 },
    }),
  );
  assert.equal(m.content, 'We deploy with blue-green switching on Fridays.');
  assert.equal(m.title, 'Deploy strategy');
  assert.equal(m.contentHash, createHash('sha256').update('we deploy with blue-green switching on fridays').digest('hex'));
  const canonical = JSON.stringify({
    context: m.content,
    decisions: ['blue-green'],
    rationale: ['zero downtime'],
    topic: 'Deploy strategy',
  });
  assert.equal(m.docHash, createHash('sha256').update(canonical, 'utf8').digest('hex'));
  assert.deepEqual(m.tags, ['deploy', 'ops']);
  assert.equal(m.type, 'decision');
  assert.equal(m.importance, 0.5);
  assert.equal(m.version, 1);
  assert.equal(m.projectId, 'github.com/acme/app');
  assert.equal(m.who, 'user');
  // The line break the text was written with is kept beside the collapsed content (lineBreaks.ts).
  assert.deepEqual(m.metadata, { ticket: 42, markdown: 'We deploy   with blue-green\nswitching on Fridays.' });
  assert.equal(m.embeddingStatus, 'pending');
  const hist = svc.history(m.id);
  assert.deepEqual(
    hist.map((h) => h.event),
    ['created'],
  );
  assert.equal(hist[0]!.newContent, m.content);
  assert.deepEqual(
    store.all('SELECT tag FROM memory_tags ORDER BY tag').map((r) => r.tag),
    ['deploy', 'ops'],
  );
  assert.deepEqual(svc.get(m.id), m);
  await store.close();
});

test("lifecycle defaults: importance ≥ 0.8 is permanent, otherwise the default TTL (24 h) for short-term origins; a person's memory is permanent", async () => {
  const { svc, store } = await openMemory();
  const keep = created(svc.create({ content: 'The API gateway must terminate TLS itself.', importance: 0.8, origin: 'pipeline' }));
  assert.equal(keep.ttlSeconds, null);
  assert.equal(keep.expiresAt, null);
  const mine = created(svc.create({ content: 'We review every pull request within a day.', importance: 0.3 }));
  assert.equal(mine.expiresAt, null, 'added by a person (no origin): permanent');
  const brief = created(svc.create({ content: 'Flaky test in the payments module today.', importance: 0.3, origin: 'pipeline' }));
  assert.equal(brief.ttlSeconds, 86400);
  assert.equal(brief.expiresAt, '2026-03-02T12:00:00.000Z');
  const explicit = created(svc.create({ content: 'Pin node to version twenty for the CI runners.', ttlSeconds: null }));
  assert.equal(explicit.expiresAt, null);
  await store.close();
});

test('validation: clear errors that name the field and the allowed values', async () => {
  const { svc, store } = await openMemory();
  const cases: [Parameters<MemoryService['create']>[0], RegExp][] = [
    [{ content: 'short' }, /content: must have at least 10 characters/],
    [{ content: 42 as unknown as string }, /content: must be a string/],
    [{ content: 'x'.repeat(70_000) }, /content: is 70000 characters; the limit is 65536/],
    [{ content: 'A perfectly fine memory text.', importance: 1.5 }, /importance: must be a number from 0.0 to 1.0, got 1.5/],
    [{ content: 'A perfectly fine memory text.', importance: Number.NaN }, /importance/],
    [{ content: 'A perfectly fine memory text.', type: 'banana' }, /type: must be one of general, solution/],
    [{ content: 'A perfectly fine memory text.', scope: 'team' }, /scope: must be one of project, global/],
    [{ content: 'A perfectly fine memory text.', metadata: [] as unknown as Record<string, unknown> }, /metadata: must be a JSON object/],
    [{ content: 'A perfectly fine memory text.', ttlSeconds: -5 }, /ttlSeconds/],
  ];
  for (const [input, re] of cases) {
    assert.throws(
      () => svc.create(input),
      (e: unknown) => e instanceof ValidationError && re.test((e as Error).message),
      JSON.stringify(input).slice(0, 80),
    );
  }
  assert.equal(svc.count(), 0);
  await store.close();
});

test('skip rules: chit-chat after a fix is skipped as low value; a short fact with the same words is stored', async () => {
  const { svc, store } = await openMemory();
  const chat = svc.create({ content: 'ok thanks, that works great!' });
  assert.equal(chat.status === 'skipped' && chat.reason, 'low_value');
  assert.equal(svc.create({ content: 'Perfect, that fixed it!' }).status, 'skipped');
  created(svc.create({ content: 'The build works only with Node 20.' }));
  created(svc.create({ content: 'That fixed the flaky login test.' }));
  assert.equal(svc.count(), 2);
  await store.close();
});

test('skip rules: filler, placeholders and near-duplicates return skipped with a reason', async () => {
  const { svc, store } = await openMemory();
  const lv = svc.create({ content: 'thanks thanks thanks!!' });
  assert.equal(lv.status, 'skipped');
  assert.equal((lv as { reason: string }).reason, 'low_value');
  const ph = svc.create({ content: 'This is a file' });
  assert.equal((ph as { reason: string }).reason, 'placeholder');
  const ph2 = svc.create({ content: 'Lorem ipsum dolor sit amet, consectetur.' });
  assert.equal((ph2 as { reason: string }).reason, 'placeholder');
  const base = created(svc.create({ content: 'The billing service retries failed webhooks three times with exponential backoff.' }));
  const near = svc.create({ content: 'The billing service retries failed webhooks three times with backoff.' });
  assert.equal(near.status, 'skipped');
  assert.equal((near as { reason: string }).reason, 'redundant');
  assert.equal((near as { existingId: string }).existingId, base.id);
  // Adds real information: stored.
  created(
    svc.create({
      content: 'The billing service retries failed webhooks; after the third failure it pages the on-call engineer via PagerDuty.',
    }),
  );
  // Opposite meaning with the same words: stored.
  created(svc.create({ content: 'The billing service never retries failed webhooks three times with exponential backoff.' }));
  assert.equal(svc.count(), 3);
  await store.close();
});

test('exact duplicates (after normalization) return the existing memory', async () => {
  const { svc, store } = await openMemory();
  const a = created(svc.create({ content: 'Use pnpm, not npm, in this repository.' }));
  const b = svc.create({ content: '  use PNPM, not npm, in this   repository!! ' });
  assert.equal(b.status, 'duplicate');
  assert.equal((b as { memory: MemoryRecord }).memory.id, a.id);
  assert.equal(svc.count(), 1);
  await store.close();
});

test('list: newest first, offset/limit (default 50, max 100), filters by type, scope and tags', async () => {
  const { svc, store, clock } = await openMemory();
  const inputs = Array.from({ length: 120 }, (_, i) => ({
    content: `Distinct memory number ${i} about topic ${i * 7919}`,
    type: i % 3 === 0 ? 'fix' : 'general',
    scope: i % 10 === 0 ? 'global' : 'project',
    tags: i % 2 ? ['odd', `n${i}`] : ['even'],
    allowNearDuplicate: true,
  }));
  for (const inp of inputs) {
    created(svc.create(inp));
    clock.advance(1000);
  }
  const page1 = svc.list();
  assert.equal(page1.limit, 50);
  assert.equal(page1.total, 120);
  assert.equal(page1.items.length, 50);
  assert.match(page1.items[0]!.preview, /number 119 /);
  const page3 = svc.list({ offset: 100, limit: 100 });
  assert.equal(page3.items.length, 20);
  assert.match(page3.items[19]!.preview, /number 0 /);
  assert.throws(() => svc.list({ limit: 101 }), /limit: must be a whole number from 1 to 100/);
  assert.throws(() => svc.list({ offset: -1 }), /offset/);
  assert.equal(svc.list({ types: ['fix'] }).total, 40);
  assert.equal(svc.list({ scope: 'global' }).total, 12);
  assert.equal(svc.list({ tags: ['odd'] }).total, 60);
  assert.equal(svc.list({ tags: ['odd', 'n7'] }).total, 1);
  assert.equal(svc.list({ tags: ['ODD '] }).total, 60); // filter tags are normalized too
  assert.equal(svc.list({ types: ['fix'], tags: ['even'] }).total, 20);
  await store.close();
});

test('update: partial, version + 1, history with old and new, re-indexed for full-text', async () => {
  const { svc, store, clock } = await openMemory({ enqueueExtraction: true });
  const m = created(svc.create({ content: 'Logs are shipped to Elasticsearch nightly.', tags: ['ops'], importance: 0.4 }));
  clock.advance(5000);
  const u = svc.update(m.id, { content: 'Logs are shipped to Loki every five minutes.', why: 'migration' });
  assert.equal(u.version, 2);
  assert.equal(u.title, m.title);
  assert.deepEqual(u.tags, ['ops']);
  assert.equal(u.importance, 0.4);
  assert.notEqual(u.contentHash, m.contentHash);
  assert.equal(u.updatedAt, '2026-03-01T12:00:05.000Z');
  assert.equal(u.createdAt, m.createdAt);
  assert.deepEqual(svc.get(m.id), u);
  const hist = svc.history(m.id);
  assert.deepEqual(
    hist.map((h) => h.event),
    ['created', 'updated'],
  );
  assert.equal(hist[1]!.oldContent, 'Logs are shipped to Elasticsearch nightly.');
  assert.equal(hist[1]!.newContent, 'Logs are shipped to Loki every five minutes.');
  assert.deepEqual(hist[1]!.metadata.changed, ['content', 'contentHash', 'docHash']);
  const fts = (q: string) => store.all(`SELECT docid FROM memories_fts WHERE memories_fts MATCH ?`, [q]).length;
  assert.equal(fts('loki'), 1);
  assert.equal(fts('elasticsearch'), 0);
  // A no-op patch does not bump the version.
  assert.equal(svc.update(m.id, { tags: ['OPS'] }).version, 2);
  // Importance ≥ 0.8 makes it permanent.
  assert.equal(svc.update(m.id, { importance: 0.9 }).expiresAt, null);
  // One open extraction job per memory, however many edits.
  assert.equal(store.get<{ n: number }>("SELECT count(*) AS n FROM memory_jobs WHERE memory_id = ? AND status = 'pending'", [m.id])!.n, 1);
  assert.throws(() => svc.update(m.id, { title: 'x', expectedVersion: 1 }), VersionConflictError);
  assert.throws(() => svc.update('nope', { title: 'x' }), NotFoundError);
  assert.throws(() => svc.update(m.id, { importance: 2 }), /importance/);
  const other = created(svc.create({ content: 'Grafana dashboards live in the ops repository.' }));
  assert.throws(() => svc.update(other.id, { content: 'logs are shipped to loki every five minutes' }), DuplicateContentError);
  await store.close();
});

test('delete is a soft delete with tombstone and history; restore undoes it; jobs are cancelled', async () => {
  const { svc, store } = await openMemory({ enqueueExtraction: true });
  const m = created(svc.create({ content: 'The staging database is reset every Sunday night.' }));
  const d = svc.delete(m.id, { reason: 'obsolete' });
  assert.ok(d.deletedAt);
  assert.equal(d.deleteReason, 'obsolete');
  assert.equal(svc.get(m.id), undefined);
  assert.equal(svc.get(m.id, { includeDeleted: true })!.deletedAt, d.deletedAt);
  assert.equal(svc.list().total, 0);
  assert.equal(svc.list({ includeDeleted: true }).total, 1);
  assert.equal(svc.delete(m.id).version, d.version); // idempotent
  assert.equal(store.get<{ status: string }>('SELECT status FROM memory_jobs WHERE memory_id = ?', [m.id])!.status, 'cancelled');
  // Same content may be stored again once the old one is a tombstone.
  const again = created(svc.create({ content: 'The staging database is reset every Sunday night.' }));
  assert.throws(() => svc.restore(m.id), DuplicateContentError);
  svc.delete(again.id);
  const r = svc.restore(m.id);
  assert.equal(r.deletedAt, null);
  assert.deepEqual(
    svc.history(m.id).map((h) => h.event),
    ['created', 'deleted', 'restored'],
  );
  assert.throws(() => svc.delete('missing'), NotFoundError);
  await store.close();
});

test('extraction jobs: enqueued per write when the pipeline is on, deduplicated, never for recalled text', async () => {
  const { svc, store } = await openMemory({ enqueueExtraction: true });
  const a = created(svc.create({ content: 'Feature flags are stored in LaunchDarkly.' }));
  created(svc.create({ content: 'Recalled: the cache TTL is ten minutes for sessions.', fromRecall: true }));
  const jobs = store.all<{ memory_id: string; job_type: string; status: string }>('SELECT memory_id, job_type, status FROM memory_jobs');
  assert.deepEqual(jobs, [{ memory_id: a.id, job_type: 'extract', status: 'pending' }]);
  await store.close();
  const off = await openMemory({ enqueueExtraction: false });
  created(off.svc.create({ content: 'Feature flags are stored in LaunchDarkly.' }));
  assert.equal(off.store.get<{ n: number }>('SELECT count(*) AS n FROM memory_jobs')!.n, 0);
  await off.store.close();
});

test('extract: false on one write: no extraction job and nothing pending, while the other writes of the same service extract', async () => {
  const { svc, store } = await openMemory({ enqueueExtraction: true });
  const derived = created(svc.create({ content: 'Derived: the queue is drained every minute.' }, { extract: false }));
  assert.equal(derived.pipelineStatus, 'complete');
  const changed = svc.update(derived.id, { content: 'Derived: the queue is drained every two minutes.' }, { extract: false });
  assert.equal(changed.pipelineStatus, 'complete');
  const typed = created(svc.create({ content: 'Typed by a person: deploys happen on Tuesdays.' }));
  assert.equal(typed.pipelineStatus, 'pending');
  const jobs = store.all<{ memory_id: string }>('SELECT memory_id FROM memory_jobs');
  assert.deepEqual(
    jobs.map((j) => j.memory_id),
    [typed.id],
  );
  await store.close();
});

test('createMany: batched commits, per-item results, bad items do not stop the batch', async () => {
  const { svc, store } = await openMemory();
  const before = store.stats().seq;
  const res = svc.createMany(
    [
      { content: 'Import one: the docs site is built with Docusaurus.' },
      { content: 'bad' },
      { content: 'Import one: the docs site is built with Docusaurus.' },
      { content: 'Import two: releases are tagged from the main branch.' },
    ],
    { batchSize: 10 },
  );
  assert.deepEqual(
    res.map((r) => r.status),
    ['created', 'error', 'duplicate', 'created'],
  );
  assert.match((res[1] as { error: string }).error, /at least 10 characters/);
  assert.equal(store.stats().seq, before + 1);
  assert.equal(svc.count(), 2);
  await store.close();
});

test('acknowledged memories are on disk: reopen after close without a snapshot', async () => {
  const { svc, store, dir, clock } = await openMemory();
  const m = created(svc.create({ content: 'Secrets are loaded from Vault at boot.', tags: ['security'] }));
  await store.close({ snapshot: false });
  const store2 = await Store.open({ dir });
  // Same clock: the memory has the default TTL, and get() hides expired memories.
  const svc2 = new MemoryService(store2, { projectId: 'github.com/acme/app', now: clock.now });
  assert.deepEqual(svc2.get(m.id), m);
  assert.deepEqual(store2.integrityCheck(), []);
  await store2.close();
});
