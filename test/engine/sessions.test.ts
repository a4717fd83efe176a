// Agent sessions through the real engine's method table (docs/sessions.md): logging, listing,
// the hybrid chunk query, one recall over memories and sessions, summary CAS, scratchpad, notes,
// transcripts and forgetting — with the events the surfaces listen to.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { createHandlers } from '../../src/engine/worker/handlers';
import type { EngineEvent, EngineMethod, ParamsOf, ResultOf } from '../../src/engine/protocol';
import { engineDirs } from './harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const CALL = { signal: new AbortController().signal, progress: () => undefined };

function call<M extends EngineMethod>(engine: MemoryEngine, method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  return Promise.resolve().then(() => handlers[method](engine, params, CALL) as ResultOf<M> | Promise<ResultOf<M>>);
}

async function open(events: EngineEvent[] = []): Promise<MemoryEngine> {
  const dirs = engineDirs();
  return MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    settings: { 'embedding.provider': 'hash' },
    onEvent: (e) => events.push(e),
  });
}

const turn = (role: string, content: string) => ({ payload: { role, content } });

test('sessions through the engine: log, list, search, recall over memories and sessions, forget', async () => {
  const events: EngineEvent[] = [];
  const engine = await open(events);
  try {
    await call(engine, 'memory.create', { content: 'The staging database runs PostgreSQL 16 on port 5433.' });
    const logged = await call(engine, 'sessions.log', {
      sessionId: 's-1',
      agent: 'claude-code',
      events: [
        turn('user', 'Why does the nightly export job time out?'),
        turn('assistant', 'The export job streams the audit table without an index on created_at; adding the index fixed the timeout.'),
      ],
    });
    assert.deepEqual(logged.sequences, [1, 2]);
    assert.ok(events.some((e) => e.type === 'sessions.changed' && e.sessionId === 's-1' && e.kind === 'logged'));
    await assert.rejects(
      call(engine, 'sessions.log', { sessionId: 's-1', events: [{ sequence: 2, payload: { role: 'user', content: 'x' } }] }),
      (e: unknown) => {
        assert.equal((e as { code?: string }).code, 'invalid_input');
        assert.match((e as Error).message, /2/);
        return true;
      },
    );

    const list = await call(engine, 'sessions.list', {});
    assert.equal(list.total, 1);
    assert.equal(list.items[0]!.agent, 'claude-code');
    assert.equal(list.items[0]!.lastSequence, 2);

    const found = await call(engine, 'sessions.search', { query: 'export job timeout index' });
    assert.equal(found.hits[0]?.sessionId, 's-1');
    assert.ok(found.hits[0]!.sequenceEnd >= 1);
    const none = await call(engine, 'sessions.search', { query: 'kubernetes helm chart' });
    assert.equal(none.hits.length, 0, 'nothing relevant clears the floor');

    const recall = await call(engine, 'recall', { query: 'staging database port and export job timeout' });
    const kinds = new Set(recall.items.map((i) => i.kind));
    assert.ok(kinds.has('memory') && kinds.has('session'), `both kinds in ${JSON.stringify(recall.items.map((i) => i.kind))}`);
    const rel = recall.items.map((i) => i.relevance);
    assert.deepEqual(
      rel,
      [...rel].sort((a, b) => b - a),
    );
    const s = recall.items.find((i) => i.kind === 'session');
    assert.equal(s?.kind === 'session' ? s.chunk.sessionId : undefined, 's-1');

    const forgotten = await call(engine, 'sessions.forget', { sessionId: 's-1', reason: 'test' });
    assert.equal(forgotten.events, 2);
    assert.equal((await call(engine, 'sessions.list', {})).total, 0);
    assert.equal((await call(engine, 'sessions.search', { query: 'export job timeout index' })).hits.length, 0);
    await assert.rejects(call(engine, 'sessions.log', { sessionId: 's-1', events: [turn('user', 'late')] }), /forgot/i);
  } finally {
    await engine.close();
  }
});

test('summary compare-and-swap, scratchpad limits, notes and transcripts through the engine', async () => {
  const engine = await open();
  try {
    await call(engine, 'sessions.log', {
      sessionId: 's-2',
      events: [turn('user', 'Plan the migration'), turn('assistant', 'Step one: back up')],
    });
    const w1 = await call(engine, 'sessions.writeSummary', {
      sessionId: 's-2',
      text: 'Planning a migration.',
      upperSequence: 2,
      expectedEpoch: 0,
    });
    assert.equal(w1.applied, true);
    const stale = await call(engine, 'sessions.writeSummary', { sessionId: 's-2', text: 'Stale.', upperSequence: 2, expectedEpoch: 0 });
    assert.equal(stale.applied, false, 'a write based on an older epoch is not applied');
    assert.equal((await call(engine, 'sessions.summary', { sessionId: 's-2' }))?.text, 'Planning a migration.');
    assert.match(
      (await call(engine, 'sessions.restore', { sessionId: 's-2' })).summary ?? '',
      /^Rolling session summary: Planning a migration\./,
    );

    await call(engine, 'scratchpad.write', { sessionId: 's-2', items: ['back up', 'run 0005'] });
    assert.deepEqual((await call(engine, 'scratchpad.read', { sessionId: 's-2' }))?.items, ['back up', 'run 0005']);
    await assert.rejects(
      call(engine, 'scratchpad.write', { sessionId: 's-2', items: Array.from({ length: 33 }, (_, i) => `item ${i}`) }),
      /32/,
    );
    assert.deepEqual(
      (await call(engine, 'scratchpad.read', { sessionId: 's-2' }))?.items,
      ['back up', 'run 0005'],
      'a refused write changes nothing',
    );

    const note = await call(engine, 'notes.store', {
      sessionId: 's-2',
      content: 'Backups live in the cold bucket.',
      tags: [' Ops ', 'ops'],
    });
    assert.match(note.noteId, /^note-[0-9a-f-]{36}$/);
    const notes = await call(engine, 'notes.list', { sessionId: 's-2' });
    assert.deepEqual(notes[0]?.tags, ['ops']);
    assert.deepEqual(await call(engine, 'notes.delete', { sessionId: 's-2', noteId: note.noteId }), { deleted: true });

    // Claude Code's transcript: one JSON object per line; meta lines are not conversation.
    const file = path.join(engineDirs().workspaceRoot, 'session.jsonl');
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    fs.writeFileSync(
      file,
      line({ type: 'summary', summary: 'x' }) +
        line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'Rename the flag' } }) +
        line({ type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'Renamed it.' }] } }),
    );
    const t1 = await call(engine, 'sessions.logTranscript', { sessionId: 's-3', path: file, agent: 'claude-code' });
    assert.deepEqual(t1.logged?.sequences, [1, 2]);
    fs.appendFileSync(file, line({ type: 'user', uuid: 'u2', message: { role: 'user', content: 'Thanks' } }));
    const t2 = await call(engine, 'sessions.logTranscript', { sessionId: 's-3', path: file });
    assert.deepEqual(t2.logged?.sequences, [3], 'only the new line is logged');
    const t3 = await call(engine, 'sessions.logTranscript', { sessionId: 's-3', path: file });
    assert.equal(t3.logged, null, 'nothing twice');
  } finally {
    await engine.close();
  }
});
