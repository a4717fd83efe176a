// Agent sessions through the real store (src/core/sessions): logging events in the specified order,
// monotonic sequences, chunks and their dedup, embedding outside the transaction with a background
// retry, recall / list / restore, forget by cascade with a history entry, and an exact replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { UserFacingError } from '../../../src/core/util/errors';
import { FlakyEmbedder, assistant, openSessions, user } from './fixture';

const rejectsWith = async (p: Promise<unknown> | (() => unknown), code: string, message: RegExp) => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    assert.ok(e instanceof UserFacingError, `a UserFacingError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return;
  }
  assert.fail('expected an error');
};

const count = (f: { store: { get<T>(sql: string, p?: unknown[]): T | undefined } }, sql: string, p: unknown[] = []) =>
  Number(f.store.get<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`, p)!.n);

test('logging events: the session is created, sequences follow, chunks are indexed in full text and vectors', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    const r = await f.sessions.storeEvents(
      's1',
      [
        { payload: user('How do we rotate the staging database password?') },
        { payload: assistant('Run the vault rotate job, then restart the api pods.') },
      ],
      { agent: 'claude-code' },
    );
    assert.deepEqual(r.sequences, [1, 2]);
    assert.equal(r.lastSequence, 2);
    assert.equal(r.chunksAdded, 2);
    assert.equal(r.chunksPending, 0);
    assert.deepEqual(r.skipped, []);
    const info = f.sessions.get('s1')!;
    assert.equal(info.agent, 'claude-code');
    assert.equal(info.events, 2);
    assert.equal(info.lastSequence, 2);
    // A later event with no sequence gets the next one; the session's updated_at moves.
    const r2 = await f.sessions.store1('s1', undefined, user('And production?'));
    assert.deepEqual(r2.sequences, [3]);
    // Full-text index and vectors of the active space, by triggers and in the same transaction.
    assert.equal(count(f, "chunks_fts WHERE chunks_fts MATCH 'vault'"), 1);
    assert.equal(count(f, 'chunks_vec WHERE embedding_model = ?', [f.embedder.space]), 3);
    assert.equal(f.chunks.current!.vectors.size, 3);
    const roles = f.store.all<{ r: string }>("SELECT json_extract(metadata_json, '$.role') AS r FROM chunks ORDER BY rid").map((x) => x.r);
    assert.deepEqual(roles, ['user', 'assistant', 'user']);
    // Recall: the last events, oldest first, payloads as logged.
    const events = f.sessions.recall('s1', 2);
    assert.deepEqual(
      events.map((e) => e.sequence),
      [2, 3],
    );
    assert.deepEqual(events[1]!.payload, user('And production?'));
  } finally {
    await f.close();
  }
});

test('a sequence not above the last is invalid_input naming the last, and nothing of the batch is written', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    await f.sessions.storeEvents('s1', [
      { sequence: 10, payload: user('first') },
      { sequence: 20, payload: user('second') },
    ]);
    await rejectsWith(
      f.sessions.store1('s1', 20, user('again')),
      'invalid_input',
      /sequence: 20 is not above the session's last sequence 20/,
    );
    await rejectsWith(
      f.sessions.storeEvents('s1', [
        { sequence: 30, payload: user('fine on its own') },
        { sequence: 25, payload: user('goes back') },
      ]),
      'invalid_input',
      /sequence: 25 is not above the session's last sequence 30/,
    );
    assert.equal(count(f, 'conversation_events'), 2, 'the batch with the bad sequence wrote nothing');
    assert.equal(count(f, "chunks_fts WHERE chunks_fts MATCH 'fine'"), 0);
    assert.equal(f.sessions.get('s1')!.lastSequence, 20);
    await rejectsWith(f.sessions.store1('s1', 0, user('zero')), 'invalid_input', /sequence: must be a whole number ≥ 1, got 0/);
  } finally {
    await f.close();
  }
});

test('a chunk whose text the session already holds extends its sequence_end; another session gets its own', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    await f.sessions.store1('s1', undefined, user('Run the tests again please.'));
    await f.sessions.store1('s1', undefined, assistant('Done.'));
    const again = await f.sessions.store1('s1', undefined, user('Run the tests again please.'));
    assert.equal(again.chunksAdded, 0);
    assert.equal(again.chunksExtended, 1);
    const row = f.store.get<{ s: number; e: number }>(
      "SELECT sequence_start AS s, sequence_end AS e FROM chunks WHERE chunk_text = 'Run the tests again please.'",
    )!;
    assert.deepEqual([row.s, row.e], [1, 3]);
    await f.sessions.store1('s2', undefined, user('Run the tests again please.'));
    assert.equal(count(f, "chunks WHERE chunk_text = 'Run the tests again please.'"), 2);
  } finally {
    await f.close();
  }
});

test('bad payloads: not an object, not JSON-able, over the size limit — each refused naming why, nothing written', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    await rejectsWith(f.sessions.store1('s1', undefined, 'just a string'), 'invalid_input', /payload: must be a JSON object \(a message\)/);
    await rejectsWith(f.sessions.store1('s1', undefined, [1, 2]), 'invalid_input', /payload: must be a JSON object/);
    const cyclic: Record<string, unknown> = { role: 'user' };
    cyclic.self = cyclic;
    await rejectsWith(f.sessions.store1('s1', undefined, cyclic), 'invalid_input', /payload: cannot be written as JSON/);
    await rejectsWith(
      f.sessions.store1('s1', undefined, user('x'.repeat(300 * 1024))),
      'invalid_input',
      /payload: is 300 KB, over the limit of 256 KB per event/,
    );
    await rejectsWith(f.sessions.store1('', undefined, user('x')), 'invalid_input', /sessionId: must be a non-empty string/);
    await rejectsWith(f.sessions.store1('a\nb', undefined, user('x')), 'invalid_input', /sessionId: must be one line/);
    await rejectsWith(f.sessions.storeEvents('s1', []), 'invalid_input', /events: must be a non-empty list/);
    assert.equal(count(f, 'sessions'), 0);
  } finally {
    await f.close();
  }
});

test('binary in tool arguments: the event is stored whole, the binary part is not indexed and the answer says so', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    const blob = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7) % 256)).toString('base64');
    const payload = { role: 'assistant', content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'logo.png', content: blob } }] };
    const r = await f.sessions.store1('s1', undefined, payload);
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0]!, /the arguments of Write: encoded data of 3 KB, not indexed/);
    assert.deepEqual(f.sessions.recall('s1')[0]!.payload, payload, 'the event keeps the whole payload');
    assert.deepEqual(
      f.store.all<{ t: string }>('SELECT chunk_text AS t FROM chunks').map((x) => x.t),
      ['Write: logo.png'],
    );
  } finally {
    await f.close();
  }
});

test('the embedder fails: events are stored with their chunks pending, and the background embeds them once it works', async () => {
  const embedder = new FlakyEmbedder();
  const f = await openSessions(tmpDir('am-sess-'), { embedder });
  try {
    embedder.failing = true;
    const r = await f.sessions.store1('s1', undefined, user('The build cache lives in /var/cache/ci and is pruned nightly.'));
    assert.deepEqual(r.sequences, [1]);
    assert.equal(r.chunksPending, 1);
    assert.match(r.skipped.join('\n'), /stored without vectors \(embedded in the background\): the embedder is down/);
    assert.equal(f.backfill.pendingCount(), 1);
    // Keyword search finds it meanwhile.
    const kw = await f.sessions.search({ query: 'build cache pruned' });
    assert.equal(kw.hits.length, 1);
    assert.equal(kw.hits[0]!.matchType, 'keyword');
    f.backfill.start();
    await f.backfill.runStep();
    assert.match(f.backfill.lastError ?? '', /the embedder is down/);
    assert.equal(f.backfill.pendingCount(), 1, 'still pending while the embedder fails');
    embedder.failing = false;
    await f.backfill.runStep();
    assert.equal(f.backfill.pendingCount(), 0);
    assert.equal(f.chunks.current!.vectors.size, 1);
    const hybrid = await f.sessions.search({ query: 'build cache pruned' });
    assert.equal(hybrid.hits[0]!.matchType, 'hybrid');
  } finally {
    await f.close();
  }
});

test('list by last activity, restore within a token budget, oldest left out first', async () => {
  let t = Date.parse('2025-03-01T10:00:00Z');
  const f = await openSessions(tmpDir('am-sess-'), { now: () => new Date((t += 1000)) });
  try {
    await f.sessions.store1('old', undefined, user('old session'));
    await f.sessions.store1('new', undefined, user('new session'));
    await f.sessions.store1('old', undefined, user('old session again, now the most recent'));
    const list = f.sessions.list(10);
    assert.equal(list.total, 2);
    assert.deepEqual(
      list.items.map((s) => s.sessionId),
      ['old', 'new'],
    );
    const events = Array.from({ length: 10 }, (_, i) => ({ payload: user(`turn ${i} `.padEnd(400, 'and more words ')) }));
    await f.sessions.storeEvents('long', events);
    const r = f.sessions.restore('long', 400);
    assert.equal(r.summary, null);
    assert.ok(r.events.length >= 2 && r.events.length < 10, `${r.events.length} events fit`);
    assert.equal(r.omitted, 10 - r.events.length);
    assert.ok(r.tokens <= 400);
    assert.deepEqual(
      r.events.map((e) => e.sequence),
      Array.from({ length: r.events.length }, (_, i) => 11 - r.events.length + i),
      'the newest, in order',
    );
    await rejectsWith(() => f.sessions.restore('nope'), 'not_found', /^No session with id nope\.$/);
  } finally {
    await f.close();
  }
});

test('forget removes the session and all of it by cascade, records it in the history, and refuses later events', async () => {
  const f = await openSessions(tmpDir('am-sess-'));
  try {
    await f.sessions.storeEvents(
      's1',
      [{ payload: user('secret plan about the migration') }, { payload: assistant('noted the migration plan') }],
      {
        agent: 'claude-code',
      },
    );
    f.sessions.writeScratchpad('s1', ['check the plan']);
    f.store.transaction((tx) =>
      tx.run("INSERT INTO files (file_id, session_id, source_uri, content_hash, created_at) VALUES (1, 's1', '/tmp/t.jsonl', 'h', 'now')"),
    );
    await f.sessions.store1('keep', undefined, user('another session about the migration'));
    const r = f.sessions.forget('s1', { who: 'tester', reason: 'asked to' });
    assert.deepEqual(r, { sessionId: 's1', events: 2, chunks: 2 });
    for (const table of ['sessions', 'conversation_events', 'session_state', 'files', 'chunks', 'chunk_tags'])
      assert.equal(
        count(
          f,
          `${table} WHERE ${table === 'chunk_tags' ? 'rid' : 'session_id'} ${table === 'chunk_tags' ? 'NOT IN (SELECT rid FROM chunks)' : "= 's1'"}`,
        ),
        0,
        table,
      );
    assert.equal(count(f, 'chunks_vec'), 1, 'only the kept session’s vector is left');
    assert.equal(count(f, "chunks_fts WHERE chunks_fts MATCH 'migration'"), 1);
    assert.equal(f.chunks.current!.vectors.size, 1);
    const h = f.store.get<{ event: string; changed_by: string; reason: string; metadata_json: string }>(
      "SELECT event, changed_by, reason, metadata_json FROM memory_history WHERE event = 'session_forgotten'",
    )!;
    assert.equal(h.changed_by, 'tester');
    assert.equal(h.reason, 'asked to');
    assert.deepEqual(JSON.parse(h.metadata_json), { sessionId: 's1', agent: 'claude-code', events: 2, chunks: 2 });
    await rejectsWith(
      f.sessions.store1('s1', undefined, user('late event')),
      'session_forgotten',
      /Session s1 was forgotten on \d{4}-\d\d-\d\d/,
    );
    await rejectsWith(() => f.sessions.forget('s1'), 'not_found', /No session with id s1/);
    assert.deepEqual(f.store.integrityCheck(), []);
  } finally {
    await f.close();
  }
});

test('the log replays exactly: a store reopened without a snapshot holds the same sessions, chunks and rids', async () => {
  const dir = tmpDir('am-sess-');
  const f = await openSessions(dir);
  const text = Array.from({ length: 200 }, (_, i) => `step${i}`).join(' ');
  await f.sessions.storeEvents('s1', [{ payload: user(text) }, { payload: assistant('ok') }]);
  await f.sessions.store1('s2', undefined, user('other'));
  f.sessions.forget('s2');
  await f.sessions.store1('s3', undefined, user('after the forget'));
  const dump = (s: typeof f.store) =>
    s.all('SELECT rid, chunk_id, session_id, chunk_text, sequence_start, sequence_end FROM chunks ORDER BY rid');
  const before = dump(f.store);
  await f.close({ snapshot: false });
  const g = await openSessions(dir);
  try {
    assert.deepEqual(dump(g.store), before);
    assert.ok(
      Number(before[before.length - 1]!.rid) > Number(before[before.length - 2]!.rid) + 1,
      'the forgotten chunk’s rid was not given out again',
    );
    assert.equal(g.chunks.current!.vectors.size, before.length);
    assert.deepEqual(g.store.integrityCheck(), []);
  } finally {
    await g.close();
  }
});
