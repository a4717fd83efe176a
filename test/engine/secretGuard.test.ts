// The secret guard through the engine's write paths (docs/secrets.md): a create (the smart
// store behind the palette, selection, @memory, the LM tools, MCP and the CLI), an edit, a move
// between stores, an import file, a document ingest and a pipeline fact the (fake) model answers
// with a key. After each, no table of the store holds the secret; the policy `refuse` skips or
// refuses, `allow` keeps the text.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { createHandlers } from '../../src/engine/worker/handlers';
import { describeCreate } from '../../src/present/createResultText';
import type { Store } from '../../src/core/store/store';
import { FakeOllama } from '../helpers/fakeOllama';
import { DB_URL, FIVE, FIVE_NEEDLES, FIVE_TEXTS, SSH_KEY } from '../helpers/fakeSecrets';
import { engineDirs } from './harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const call = () => ({ signal: new AbortController().signal, progress: () => undefined });

function storeOf(engine: MemoryEngine, name: 'project' | 'global' = 'project'): Store {
  return (engine as unknown as { ctx: { stores: { store(n: string): Store } } }).ctx.stores.store(name);
}

/** Every text value of every table of the store (FTS shadow tables included). */
function everyText(store: Store): string {
  const tables = store.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).map((r) => String(r.name));
  const out: string[] = [];
  for (const t of tables) {
    for (const row of store.all(`SELECT * FROM "${t}"`)) {
      for (const v of Object.values(row)) {
        if (typeof v === 'string') out.push(v);
        else if (v instanceof Uint8Array) out.push(Buffer.from(v).toString('latin1'));
      }
    }
  }
  return out.join('\n');
}

function assertNoSecret(store: Store, needles: readonly string[] = FIVE_NEEDLES): void {
  const all = everyText(store);
  for (const n of needles) assert.ok(!all.includes(n), `the store still holds ${n}`);
}

async function open(settings: Record<string, unknown> = {}) {
  const dirs = engineDirs();
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: { 'embedding.provider': 'hash', ...settings } });
  return { engine, dirs };
}

test('create: each of the five kinds is redacted, the answer names the kinds, nothing of them is stored', async () => {
  const { engine } = await open();
  try {
    const kinds: string[] = [];
    for (const content of FIVE_TEXTS) {
      const r = await handlers['memory.create'](engine, { content, who: 'tester' }, call());
      assert.equal(r.status, 'created', JSON.stringify(r));
      if (r.status !== 'created') continue;
      assert.ok(r.memory.content.includes('[redacted: '), r.memory.content);
      kinds.push(...(r.redacted ?? []));
      assert.match(describeCreate(r), /Removed before saving: (a|an) .+, replaced by \[redacted: …\] so it is never stored\.$/);
    }
    assert.deepEqual(kinds, ['aws_access_key', 'aws_secret_key', 'github_token', 'url_password', 'openai_key', 'private_key']);
    const saved = engine.memories.list({}).items;
    assert.equal(saved.length, 5);
    assertNoSecret(storeOf(engine));
    // Sending the same text again finds the memory (the hash is the redacted text's), not a second copy.
    const again = await handlers['memory.create'](engine, { content: FIVE_TEXTS[1]! }, call());
    assert.equal(again.status, 'duplicate');
    assert.deepEqual(again.status === 'duplicate' ? again.redacted : undefined, ['github_token']);
    // Recall returns the redacted text.
    const hits = await handlers.search(engine, { query: 'GitHub token CI bot pushes' }, call());
    assert.ok(hits.hits.length > 0);
    assert.ok(hits.hits.some((h) => JSON.stringify(h).includes('[redacted: GitHub token]')));
    for (const n of FIVE_NEEDLES) assert.ok(!JSON.stringify(hits).includes(n));
  } finally {
    await engine.close();
  }
});

test('title, tags, metadata, summary, decisions and why are guarded too', async () => {
  const { engine } = await open();
  try {
    const r = await handlers['memory.create'](
      engine,
      {
        content: 'The billing service reads its configuration from the vault at start-up.',
        title: `Billing key ${FIVE.githubToken}`,
        tags: ['billing', FIVE.openaiKey],
        metadata: { env: { DATABASE_URL: DB_URL }, [FIVE.awsAccessKey]: true },
        summary: `uses ${FIVE.githubToken}`,
        decisions: [`rotate ${FIVE.openaiKey}`],
        why: `found ${FIVE.awsAccessKey}`,
      },
      call(),
    );
    assert.equal(r.status, 'created', JSON.stringify(r));
    assert.deepEqual(
      new Set(r.status === 'created' ? r.redacted : []),
      new Set(['github_token', 'openai_key', 'url_password', 'aws_access_key']),
    );
    assertNoSecret(storeOf(engine));
  } finally {
    await engine.close();
  }
});

test('edit: a secret typed into an existing memory is redacted, the answer says so, the history holds none', async () => {
  const { engine } = await open();
  try {
    const c = await handlers['memory.create'](engine, { content: 'The deploy bot pushes release tags every Friday.' }, call());
    assert.equal(c.status, 'created');
    if (c.status !== 'created') return;
    const u = await handlers['memory.update'](
      engine,
      { id: c.memory.id, patch: { content: `The deploy bot pushes release tags every Friday with ${FIVE.githubToken}.` } },
      call(),
    );
    assert.deepEqual(u.redacted, ['github_token']);
    assert.equal(u.content, 'The deploy bot pushes release tags every Friday with [redacted: GitHub token].');
    const history = await handlers['memory.history'](engine, { id: c.memory.id }, call());
    assert.deepEqual(history.at(-1)?.metadata.redacted, ['github_token']);
    // A move to the global store is a create there: guarded too.
    const moved = await handlers['memory.update'](
      engine,
      { id: c.memory.id, patch: { scope: 'global', title: `key ${FIVE.openaiKey}` } },
      call(),
    );
    assert.deepEqual(moved.redacted, ['openai_key']);
    assertNoSecret(storeOf(engine));
    assertNoSecret(storeOf(engine, 'global'));
  } finally {
    await engine.close();
  }
});

test('policy refuse: a create is skipped with secret_detected, an edit fails with it, nothing is written', async () => {
  const { engine } = await open({ 'memory.secret_policy': 'refuse' });
  try {
    const r = await handlers['memory.create'](engine, { content: FIVE_TEXTS[0]! }, call());
    assert.equal(r.status, 'skipped');
    if (r.status !== 'skipped') return;
    assert.equal(r.reason, 'secret_detected');
    assert.deepEqual(r.secrets, ['aws_access_key', 'aws_secret_key']);
    assert.equal(
      describeCreate(r),
      'Not saved: It holds an AWS access key and an AWS secret key, and this store refuses memories with secrets. Remove the secret and save again.',
    );
    const c = await handlers['memory.create'](engine, { content: 'The staging bucket is emptied every night at two.' }, call());
    assert.equal(c.status, 'created');
    if (c.status !== 'created') return;
    await assert.rejects(
      Promise.resolve(
        handlers['memory.update'](engine, { id: c.memory.id, patch: { content: `Bucket key ${FIVE.awsAccessKey}` } }, call()),
      ),
      (e: unknown) => (e as { code?: string }).code === 'secret_detected' && /an AWS access key/.test((e as Error).message),
    );
    assert.equal(engine.memories.list({}).total, 1);
    assertNoSecret(storeOf(engine));
  } finally {
    await engine.close();
  }
});

test('policy allow: the text is stored as written', async () => {
  const { engine } = await open({ 'memory.secret_policy': 'allow' });
  try {
    const r = await handlers['memory.create'](engine, { content: FIVE_TEXTS[1]! }, call());
    assert.equal(r.status, 'created');
    assert.equal(r.status === 'created' && r.redacted, undefined);
    assert.ok(everyText(storeOf(engine)).includes(FIVE.githubToken));
  } finally {
    await engine.close();
  }
});

test('import: a JSONL file with secrets is imported redacted, with a note per line', async () => {
  const { engine, dirs } = await open();
  try {
    const file = path.join(dirs.workspaceRoot, 'in.jsonl');
    const lines = [
      JSON.stringify({ format: 'agent-memory-jsonl', version: 1 }),
      ...FIVE_TEXTS.map((content) => JSON.stringify({ content, tags: ['imported'] })),
    ];
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const r = await handlers.import(engine, { path: file }, call());
    assert.equal(r.created, 5, JSON.stringify(r));
    assert.equal(r.warnings?.length, 5);
    assert.match(r.warnings![0]!.message, /^Removed before saving: an AWS access key and an AWS secret key/);
    assert.equal(r.warnings![0]!.line, 2);
    assertNoSecret(storeOf(engine));
  } finally {
    await engine.close();
  }
});

test('document ingest: the chunks and the document text kept for re-ingest are redacted; the same file again is unchanged', async () => {
  const { engine, dirs } = await open();
  try {
    const file = path.join(dirs.workspaceRoot, 'RUNBOOK.md');
    fs.writeFileSync(file, `# Runbook\n\n## Database\n\nConnect with ${DB_URL} from the bastion.\n\n## Access\n\n${SSH_KEY}\n`);
    const r = await handlers['documents.ingest'](engine, { path: file }, call());
    assert.equal(r.status, 'done', JSON.stringify(r));
    assert.deepEqual(r.redacted, ['url_password', 'private_key']);
    assert.ok(r.memoryIds.length >= 1);
    assertNoSecret(storeOf(engine));
    const again = await handlers['documents.ingest'](engine, { path: file }, call());
    assert.equal(again.unchanged, true);
  } finally {
    await engine.close();
  }
});

test('pipeline: a fact the model answers with a key is stored redacted; no audit row, job result or entity holds it', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  fake.enqueue('generate', {
    reply: JSON.stringify({
      facts: [{ content: `The payments service authenticates with ${FIVE.openaiKey} in production.`, type: 'fact', confidence: 0.95 }],
      entities: [{ source: 'payments service', relationship: 'uses', target: FIVE.githubToken, confidence: 0.9 }],
    }),
  });
  const { engine } = await open({
    'memory.pipelineV2.enabled': true,
    'memory.pipelineV2.graphEnabled': true,
    'memory.pipelineV2.ollamaUrl': fake.url,
    'memory.pipelineV2.workerPollMs': 100,
  });
  try {
    const src = await engine.memories.create({ content: 'The payments service talks to the model provider for fraud checks.' });
    assert.equal(src.status, 'created');
    const facts = () => engine.memories.list({ types: ['fact'] }).items;
    for (let i = 0; i < 200 && facts().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      facts().map((f) => f.preview),
      ['The payments service authenticates with [redacted: OpenAI key] in production.'],
    );
    const store = storeOf(engine);
    for (let i = 0; i < 100 && !store.get(`SELECT 1 FROM memory_jobs WHERE job_type = 'extract' AND status = 'completed'`); i++)
      await new Promise((r) => setTimeout(r, 50));
    assertNoSecret(store);
  } finally {
    await engine.close();
    await fake.close();
  }
});
