/**
 * Identifiers with digits (sha256sum, utf8mb4, v2beta1) match exactly and rank first among
 * decoys the porter tokenizer confuses them with; words keep their stemming; the exact index
 * follows inserts, updates and deletes and is built for memories stored before migration 0004.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { searchFixture } from './fixture';
import { tmpDir } from '../../helpers/tmp';
import { Store } from '../../../src/core/store/store';
import { buildMemoryFilter } from '../../../src/core/search/filters';
import { buildFtsTerms } from '../../../src/core/search/ftsQuery';
import { fullTextLeg, needsExactIndex, splitByIndex } from '../../../src/core/search/fullTextExact';

const NOTES = {
  sha256sum: 'Verify every release download with sha256sum before installing it.',
  sha512sum: 'Verify every release download with sha512sum before installing it.',
  sha1sum: 'The legacy mirror still publishes sha1sum files next to each archive.',
  sha256: 'The sha256 digest of each build is printed by the release script.',
  utf8mb4: 'MySQL tables use the utf8mb4 character set so emoji survive.',
  utf8mb3: 'Old MySQL tables were created with utf8mb3 and lose emoji.',
  v2beta1: 'The cluster serves the autoscaling v2beta1 API for the batch jobs.',
  v2beta2: 'The cluster serves the autoscaling v2beta2 API for the web tier.',
  installs: 'The bootstrap script installs the toolchain on new laptops.',
};

async function seeded() {
  const f = await searchFixture();
  const ids: Record<string, string> = {};
  for (const [key, content] of Object.entries(NOTES)) ids[key] = (await f.add({ content })).id;
  return { ...f, ids };
}

test('which terms go to the exact index: long words with digits, prefixes with digits, phrases holding them', () => {
  assert.deepEqual(['"sha256sum"', '"utf8mb4"', '"v2beta1"', '"sha2*"', '"run sha256sum"'].map(needsExactIndex), [
    true,
    true,
    true,
    true,
    true,
  ]);
  assert.deepEqual(['"sha256"', '"es2022"', '"install"', '"inst*"', '"release download"', '"2026"'].map(needsExactIndex), [
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  assert.deepEqual(splitByIndex(buildFtsTerms('sha256sum installing')!), { stemmed: ['"installing"'], exact: ['"sha256sum"'] });
});

for (const [query, want, decoys] of [
  ['sha256sum', 'sha256sum', ['sha512sum', 'sha1sum']],
  ['utf8mb4', 'utf8mb4', ['utf8mb3']],
  ['v2beta1', 'v2beta1', ['v2beta2']],
  ['which command: sha256sum?', 'sha256sum', ['sha512sum', 'sha1sum']],
] as const) {
  test(`"${query}" finds exactly its memory first, not the porter collisions`, async () => {
    const f = await seeded();
    const r = await f.searcher().search({ query });
    assert.equal(r.results[0]?.memory.id, f.ids[want], JSON.stringify(r.results.map((x) => x.memory.preview)));
    assert.ok(r.results[0]!.textScore > 0);
    const where = buildMemoryFilter(f.svc.projectId, {}, f.clock.now());
    const leg = fullTextLeg(f.store, buildFtsTerms(query)!, where, 20, true);
    const keywordIds = new Set(leg.hits.map((h) => h.id));
    assert.ok(keywordIds.has(f.ids[want]!));
    for (const d of decoys) assert.ok(!keywordIds.has(f.ids[d]!), `${d} matched the keyword leg of ${query}`);
    for (const x of r.results)
      if (x.memory.id !== f.ids[want]) assert.equal(x.textScore, 0, `${x.memory.preview} scored as a keyword match`);
    await f.store.close();
  });
}

test('words keep porter stemming, alone and next to an identifier; a prefix with digits finds the identifiers it starts', async () => {
  const f = await seeded();
  const stem = await f.searcher().search({ query: 'installing' });
  const stemIds = stem.results.filter((x) => x.textScore > 0).map((x) => x.memory.id);
  for (const k of ['installs', 'sha256sum', 'sha512sum']) assert.ok(stemIds.includes(f.ids[k]!), `installing → ${k}`);
  const mixed = await f.searcher().search({ query: 'sha256sum installing' });
  assert.equal(mixed.results[0]?.memory.id, f.ids.sha256sum);
  const prefix = fullTextLeg(f.store, buildFtsTerms('sha256*')!, buildMemoryFilter(f.svc.projectId, {}, f.clock.now()), 20, true);
  assert.deepEqual(new Set(prefix.hits.map((h) => h.id)), new Set([f.ids.sha256sum, f.ids.sha256]));
  await f.store.close();
});

test('the exact index follows updates and deletes and passes its integrity check', async () => {
  const f = await seeded();
  const where = () => buildMemoryFilter(f.svc.projectId, {}, f.clock.now());
  const ids = (q: string) => fullTextLeg(f.store, buildFtsTerms(q)!, where(), 20, false).hits.map((h) => h.id);
  f.svc.update(f.ids.utf8mb3!, { content: 'Old MySQL tables were converted from utf8mb3 to utf8mb4 last year.' });
  assert.deepEqual(new Set(ids('utf8mb4')), new Set([f.ids.utf8mb4, f.ids.utf8mb3]));
  f.svc.update(f.ids.utf8mb3!, { content: 'Old MySQL tables use latin1 everywhere.' });
  assert.deepEqual(ids('utf8mb4'), [f.ids.utf8mb4]);
  f.svc.delete(f.ids.utf8mb4!);
  assert.deepEqual(ids('utf8mb4'), [], 'a deleted memory is not found');
  // FTS4 reports a damaged index by failing this statement (read-only check).
  f.store.all("INSERT INTO memories_exact(memories_exact) VALUES('integrity-check')");
  assert.deepEqual(f.store.integrityCheck(), []);
  await f.store.close();
});

test('migration 0004 indexes the memories stored before it', async () => {
  const dir = tmpDir('am-exact-mig-');
  const older = tmpDir('am-exact-migdir-');
  for (const file of fs.readdirSync(path.resolve('migrations'))) {
    if (/^000[1-3]_/.test(file)) fs.copyFileSync(path.resolve('migrations', file), path.join(older, file));
  }
  const before = await Store.open({ dir, migrationsDir: older });
  // Rows as the write path of schema 0003 stored them (today's write path names later tables: the change feed's).
  const at = '2026-01-01T00:00:00.000Z';
  for (const [id, content] of [
    ['m-256', NOTES.sha256sum],
    ['m-512', NOTES.sha512sum],
  ])
    before.transaction((tx) =>
      tx.run(
        `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, metadata_json, embedding_status, created_at, updated_at)
         VALUES (?, 'p', ?, ?, ?, ?, '{}', 'pending', ?, ?)`,
        [id, content, content.toLowerCase(), id, id, at, at],
      ),
    );
  const rid = Number(before.get<{ rid: number }>("SELECT rid FROM memories WHERE id = 'm-256'")!.rid);
  await before.close();
  const after = await Store.open({ dir });
  const hits = after.all<{ docid: number }>(`SELECT docid FROM memories_exact WHERE memories_exact MATCH '"sha256sum"'`);
  assert.deepEqual(
    hits.map((h) => Number(h.docid)),
    [rid],
  );
  await after.close();
});
