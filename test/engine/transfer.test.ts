// Export / import as JSONL through the real worker thread: round-trip into an empty store keeps
// every field that matters (and created_at), exact duplicates are counted and not re-added, bad
// lines are reported by line number without losing the good ones, a newer format is refused,
// cancellation keeps what was imported, and the older JSON export is still read.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineError } from '../../src/engine/errors';
import type { MemoryRecord } from '../../src/engine/protocol';
import type { EngineClient } from '../../src/engine/client/engineClient';
import { JSONL_FORMAT, parseJsonl } from '../../src/engine/transferFormat';
import { engineDirs, startClient } from './harness';
import { tmpDir } from '../helpers/tmp';
import { until } from '../helpers/until';

async function withEngine<T>(fn: (c: EngineClient) => Promise<T>): Promise<T> {
  const client = startClient({ ...engineDirs() });
  await client.start();
  try {
    return await fn(client);
  } finally {
    await client.shutdown(4000);
  }
}

async function allMemories(c: EngineClient): Promise<MemoryRecord[]> {
  const list = await c.request('memory.list', { limit: 100 });
  const out: MemoryRecord[] = [];
  for (const m of list.items) out.push((await c.request('memory.get', { id: m.id }))!);
  return out.sort((a, b) => a.content.localeCompare(b.content));
}

/** The fields a round-trip must keep. */
function portable(m: MemoryRecord) {
  return {
    content: m.content,
    title: m.title,
    type: m.type,
    tags: m.tags,
    importance: m.importance,
    scope: m.scope,
    decisions: m.decisions,
    rationale: m.rationale,
    metadata: m.metadata,
    createdAt: m.createdAt,
    summary: m.summary,
  };
}

test('JSONL export → import into an empty store gives the same memories; importing again adds nothing', async () => {
  const dir = tmpDir('am-transfer-');
  const file = path.join(dir, 'memories.jsonl');
  const before = await withEngine(async (a) => {
    await a.request('memory.create', {
      content: 'We chose Postgres over MySQL for the ledger service because of transactional DDL.',
      title: 'Ledger database',
      type: 'decision',
      tags: ['db', 'ledger'],
      importance: 0.9,
      decisions: ['Use Postgres 16'],
      rationale: ['transactional DDL', 'pgvector'],
      metadata: { ticket: 'ENG-42', reviewers: ['ana', 'bo'] },
      summary: 'Postgres for the ledger',
    });
    await a.request('memory.create', {
      content: 'Escape <script> & "quotes" in the HTML templates; never build markup by concatenation.',
      type: 'code_pattern',
      tags: ['html'],
    });
    await a.request('memory.create', {
      content: 'Release branches are cut every second Thursday by the on-call engineer.',
      scope: 'global',
      type: 'workflow',
      importance: 0.3,
    });
    const out = await a.request('export', { path: file });
    assert.equal(out.count, 3);
    return allMemories(a);
  });
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 4, 'a header line, then one line per memory');
  const header = JSON.parse(lines[0]!);
  assert.equal(header.format, JSONL_FORMAT);
  assert.equal(header.version, 1);
  assert.equal(header.count, 3);
  assert.ok(lines.slice(1).every((l) => typeof JSON.parse(l).content === 'string'));

  await withEngine(async (b) => {
    const progress: number[] = [];
    const r = await b.request('import', { path: file }, { onProgress: (done) => progress.push(done) });
    assert.deepEqual(r, { total: 3, created: 3, duplicates: 0, skipped: 0, errors: [], format: 'jsonl' });
    assert.deepEqual(progress, [3]);
    const after = await allMemories(b);
    assert.deepEqual(
      after.map(portable),
      before.map(portable),
      'same content, title, type, tags, importance, scope, decisions, rationale, metadata, created_at',
    );
    assert.equal((await b.request('stats', {})).global.memories, 1, 'the global memory went back to the global store');
    const hit = (await b.request('search', { query: 'ledger database postgres' })).hits[0];
    assert.equal(hit?.memory.title, 'Ledger database', 'imported memories are searchable');

    const again = await b.request('import', { path: file });
    assert.deepEqual(
      { created: again.created, duplicates: again.duplicates },
      { created: 0, duplicates: 3 },
      'exact duplicates are counted, not re-added',
    );
    assert.equal((await b.request('memory.list', { limit: 100 })).total, 3);
  });
});

test('bad JSONL lines are reported with their line numbers and skipped; the good lines are kept', async () => {
  const dir = tmpDir('am-transfer-');
  const file = path.join(dir, 'mixed.jsonl');
  fs.writeFileSync(
    file,
    [
      JSON.stringify({ format: JSONL_FORMAT, version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'x', count: 5 }),
      JSON.stringify({
        content: 'The staging database listens on port 5433, not the default.',
        createdAt: '2024-01-02T03:04:05.000Z',
        tags: ['db'],
      }),
      '{"content": "truncated line',
      JSON.stringify({ title: 'no content at all' }),
      JSON.stringify({ content: 'Importance out of range makes this line invalid for sure.', importance: 7 }),
      '',
      '42',
      JSON.stringify({ content: 'Feature flags live in config/flags.yaml and are reloaded on SIGHUP.', type: 'fact' }),
    ].join('\n') + '\n',
  );
  await withEngine(async (c) => {
    const r = await c.request('import', { path: file });
    assert.equal(r.total, 6, 'five memory lines and one bad JSON line (the blank line is not counted)');
    assert.equal(r.created, 2);
    assert.deepEqual(
      r.errors.map((e) => e.line),
      [3, 4, 5, 7],
    );
    assert.match(r.errors[0]!.message, /^line 3: not valid JSON \(/);
    assert.match(r.errors[1]!.message, /^line 4: no "content"/);
    assert.match(r.errors[2]!.message, /line 5: .*importance/i);
    assert.match(r.errors[3]!.message, /^line 7: not an object$/);
    const kept = await allMemories(c);
    assert.deepEqual(
      kept.map((m) => m.content),
      [
        'Feature flags live in config/flags.yaml and are reloaded on SIGHUP.',
        'The staging database listens on port 5433, not the default.',
      ],
    );
    assert.equal(kept[1]!.createdAt, '2024-01-02T03:04:05.000Z', 'created_at comes from the file');

    // The created-at range filter of the search (in the query: src/core/search/filters.ts). The
    // recent memory clears the relevance floor by its words and its meaning together: wait for its vector.
    await until('the imported memories to be embedded', async () => (await allMemories(c)).every((m) => m.embeddingStatus === 'ready'));
    const old = await c.request('search', { query: 'staging database port flags', createdBefore: '2025-01-01' });
    assert.deepEqual(
      old.hits.map((h) => h.content),
      ['The staging database listens on port 5433, not the default.'],
    );
    const recent = await c.request('search', { query: 'staging database port flags', createdAfter: '2025-01-01' });
    assert.deepEqual(
      recent.hits.map((h) => h.content),
      ['Feature flags live in config/flags.yaml and are reloaded on SIGHUP.'],
    );
    assert.ok(
      recent.hits.every((h) => h.matchType !== undefined),
      'every hit says how it matched',
    );
    await assert.rejects(
      c.request('search', { query: 'x', createdAfter: 'last tuesday' }),
      (e: unknown) => e instanceof EngineError && e.code === 'invalid_input' && /createdAfter/.test(e.message),
    );

    const newer = path.join(dir, 'newer.jsonl');
    fs.writeFileSync(
      newer,
      JSON.stringify({ format: JSONL_FORMAT, version: 99 }) +
        '\n' +
        JSON.stringify({ content: 'Something written by a future version of the extension.' }) +
        '\n',
    );
    await assert.rejects(
      c.request('import', { path: newer }),
      (e: unknown) => e instanceof EngineError && e.code === 'invalid_input' && /version 99/.test(e.message),
    );
  });
});

test('a JSONL import can be cancelled between batches; the committed batches stay', async () => {
  const dir = tmpDir('am-transfer-');
  const file = path.join(dir, 'many.jsonl');
  const n = 3000;
  fs.writeFileSync(
    file,
    [
      JSON.stringify({ format: JSONL_FORMAT, version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'x', count: n }),
      ...Array.from({ length: n }, (_, i) =>
        JSON.stringify({ content: `Imported fact ${i}: service s${i} owns queue q${i} in region r${i % 7}.` }),
      ),
    ].join('\n'),
  );
  await withEngine(async (c) => {
    const ac = new AbortController();
    await assert.rejects(
      c.request('import', { path: file }, { signal: ac.signal, onProgress: () => ac.abort() }),
      (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
    );
    const total = (await c.request('memory.list', { limit: 1 })).total;
    assert.ok(total > 0 && total < n, `some batches were committed before the cancel, not all (${total})`);
    assert.equal(total % 200, 0, 'whole batches only');
  });
});

test('the older JSON export is still written on request and read back', async () => {
  const dir = tmpDir('am-transfer-');
  const file = path.join(dir, 'old.json');
  await withEngine(async (a) => {
    await a.request('memory.create', { content: 'Use the JSON exporter only for tools that cannot read JSONL files.', tags: ['compat'] });
    await a.request('export', { path: file, format: 'json' });
  });
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).format, 'agent-memory-export');
  await withEngine(async (b) => {
    const r = await b.request('import', { path: file });
    assert.deepEqual({ created: r.created, format: r.format }, { created: 1, format: 'json' });
    assert.deepEqual(
      (await allMemories(b)).map((m) => m.tags),
      [['compat']],
    );
  });
});

test('parseJsonl: a headerless file is read line by line; a second header is a bad line', () => {
  const r = parseJsonl(`{"content":"first memory line without any header"}\n{"format":"${JSONL_FORMAT}","version":1}\n`);
  assert.equal(r.header, undefined);
  assert.deepEqual(
    r.items.map((i) => ('invalid' in i ? i.invalid : 'ok')),
    ['ok', 'line 2: a second header line'],
  );
});

test("import: an unreadable created_at is reported (the memory is imported with today's date), not dropped silently", async () => {
  const dir = tmpDir('am-import-date-');
  const file = path.join(dir, 'dates.jsonl');
  fs.writeFileSync(
    file,
    [
      JSON.stringify({ content: 'The release train leaves every second Tuesday at noon.', createdAt: 'yesterday' }),
      JSON.stringify({ content: 'Hotfixes need two approvals from the on-call pair.', createdAt: '2025-03-01T10:00:00.000Z' }),
    ].join('\n') + '\n',
  );
  await withEngine(async (c) => {
    const r = await c.request('import', { path: file });
    assert.equal(r.created, 2);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, [
      { index: 0, line: 1, message: 'line 1: created_at "yesterday" is not a date; imported with today\'s date' },
    ]);
    const kept = await allMemories(c);
    assert.equal(kept.find((m) => m.content.startsWith('Hotfixes'))!.createdAt, '2025-03-01T10:00:00.000Z');
  });
});
