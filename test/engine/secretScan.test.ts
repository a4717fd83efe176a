// Scan Memories for Secrets (docs/secrets.md "Scanning what is already stored"): a store written
// with the guard off (as older versions did) holds the five kinds in its rows, history, FTS,
// snapshot, previous snapshot, op log and quarantine. The scan reports them without printing
// them; with redact, no byte of any file of the store holds one afterwards, the memories read
// redacted, their vectors are made again and the store reopens with the same memories.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { createHandlers } from '../../src/engine/worker/handlers';
import { FIVE, FIVE_NEEDLES, FIVE_TEXTS } from '../helpers/fakeSecrets';
import { engineDirs } from './harness';
import type { Store } from '../../src/core/store/store';

function storeOf(engine: MemoryEngine, name: 'project' | 'global'): Store {
  return (engine as unknown as { ctx: { stores: { store(n: string): Store } } }).ctx.stores.store(name);
}

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const call = () => ({ signal: new AbortController().signal, progress: () => undefined });

/** Every file under `dir`, as bytes read as latin1 (so any text in it is found). */
function everyFile(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(p, fs.readFileSync(p).toString('latin1'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

function filesHolding(dirs: string[], needles: readonly string[]): string[] {
  const hits: string[] = [];
  for (const dir of dirs)
    for (const [file, text] of everyFile(dir))
      for (const n of needles) if (text.includes(n)) hits.push(`${path.relative(dir, file)}: ${n}`);
  return hits;
}

const open = (dirs: ReturnType<typeof engineDirs>, policy: string) =>
  MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: { 'embedding.provider': 'hash', 'memory.secret_policy': policy } });

test('scan: finds what an unguarded store holds, redacts it everywhere and leaves no file holding a secret', async () => {
  const dirs = engineDirs();
  const storeDirs = [dirs.storageDir, dirs.globalStorageDir];
  // An older version: no guard. Two snapshots (so a previous one exists), an edit (history), a
  // deleted memory, a memory in the global store, and a quarantined copy.
  let engine = await open(dirs, 'allow');
  const ids: string[] = [];
  try {
    for (const content of FIVE_TEXTS.slice(0, 3)) {
      const r = await handlers['memory.create'](engine, { content, tags: ['ops'] }, call());
      assert.equal(r.status, 'created');
      if (r.status === 'created') ids.push(r.memory.id);
    }
    await handlers['engine.snapshot'](engine, {}, call());
    const g = await handlers['memory.create'](engine, { content: FIVE_TEXTS[3]!, scope: 'global' }, call());
    assert.equal(g.status, 'created');
    await handlers['memory.update'](engine, { id: ids[1]!, patch: { content: `${FIVE_TEXTS[4]!} Rotated monthly.` } }, call());
    await handlers['memory.delete'](engine, { id: ids[2]! }, call());
    await handlers['engine.snapshot'](engine, {}, call());
  } finally {
    await engine.close();
  }
  const projectStore = [...everyFile(dirs.storageDir).keys()].find((f) => f.endsWith('snapshot.sqlite'))!;
  fs.mkdirSync(path.join(path.dirname(projectStore), 'quarantine'), { recursive: true });
  fs.copyFileSync(projectStore, path.join(path.dirname(projectStore), 'quarantine', '2026-01-01T00-00-00-000Z-snapshot.sqlite'));
  assert.ok(filesHolding(storeDirs, FIVE_NEEDLES).length > 0, 'the unguarded store holds the secrets');

  engine = await open(dirs, 'redact');
  try {
    // Report only: nothing changes, the report names kinds and memories, never a secret.
    const seen = await handlers['secrets.scan'](engine, {}, call());
    assert.equal(seen.redact, false);
    const project = seen.stores.find((s) => s.store === 'project')!;
    const global = seen.stores.find((s) => s.store === 'global')!;
    assert.deepEqual(new Set(project.memoryIds), new Set(ids));
    assert.deepEqual(new Set(project.historyOf), new Set(ids));
    for (const k of ['aws_access_key', 'aws_secret_key', 'github_token', 'url_password', 'private_key'] as const)
      assert.ok((project.kinds[k] ?? 0) > 0, `${k} counted`);
    assert.ok((global.kinds.openai_key ?? 0) > 0);
    assert.equal(project.redactedValues, 0);
    for (const n of FIVE_NEEDLES) assert.ok(!JSON.stringify(seen).includes(n));
    assert.ok(filesHolding(storeDirs, FIVE_NEEDLES).length > 0, 'a report changes nothing');

    const done = await handlers['secrets.scan'](engine, { redact: true }, call());
    const p = done.stores.find((s) => s.store === 'project')!;
    assert.ok(p.redactedValues > 0);
    assert.ok(p.removedFiles >= 2, `removed ${p.removedFiles}`);
    assert.ok(p.reembed >= 1);
    // The compaction is quiet: no warning (a snapshot falling back to copying the database warns).
    for (const name of ['project', 'global'] as const) assert.deepEqual(storeOf(engine, name).warnings, []);
    const m = await handlers['memory.get'](engine, { id: ids[1]! }, call());
    assert.match(m!.content, /\[redacted: private key\] use it with ssh -i\. Rotated monthly\.$/);
    const history = await handlers['memory.history'](engine, { id: ids[1]! }, call());
    assert.ok(history.length >= 2);
    assert.ok(!JSON.stringify(history).includes(FIVE.githubToken));
    // Recall by a word of a secret finds nothing; by the text around it, the redacted memory.
    const bySecret = await handlers.search(engine, { query: FIVE.githubToken.slice(4, 24) }, call());
    assert.ok(!JSON.stringify(bySecret).includes(FIVE.githubToken));
    // The vectors of the redacted texts are made again by the backfill.
    const pending = () =>
      (['project', 'global'] as const).reduce(
        (n, name) =>
          n +
          Number(
            storeOf(engine, name).get(`SELECT count(*) AS n FROM memories WHERE embedding_status = 'pending' AND deleted_at IS NULL`)!.n,
          ),
        0,
      );
    assert.ok(pending() > 0, 'the redacted texts wait for new vectors');
    for (let i = 0; i < 100 && pending() > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(pending(), 0);
    const ready = storeOf(engine, 'project').get<{ n: number }>(
      `SELECT count(*) AS n FROM memories WHERE embedding_status = 'ready' AND embedding_hash IS NOT NULL AND deleted_at IS NULL`,
    );
    assert.equal(Number(ready!.n), 2);
    assert.deepEqual(filesHolding(storeDirs, FIVE_NEEDLES), []);
    // Again: nothing left to find.
    const again = await handlers['secrets.scan'](engine, {}, call());
    assert.deepEqual(
      again.stores.map((s) => s.kinds),
      [{}, {}],
    );
  } finally {
    await engine.close();
  }
  assert.deepEqual(filesHolding(storeDirs, FIVE_NEEDLES), []);
  // The compacted store opens with its memories (the deleted one stays deleted).
  engine = await open(dirs, 'redact');
  try {
    assert.equal(engine.memories.list({}).total, 3, 'two in the project store, one in the global');
    const back = await handlers['memory.get'](engine, { id: ids[0]! }, call());
    assert.match(
      back!.content,
      /^Deploy user AWS key \[redacted: AWS access key\] with aws_secret_access_key = \[redacted: AWS secret key\]/,
    );
  } finally {
    await engine.close();
  }
});
