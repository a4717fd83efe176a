// What the team memory surfaces of VS Code say (src/extension/team/teamText.ts) and who made a
// memory's shared version (src/core/team/localState.ts sharedByOf, the memory document's header):
// the status item in each state, the sentences its click shows, a conflict's row, and the author
// read from a real store's team_memories and rendered in the document without becoming an edit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TeamConflictInfo, TeamOverview } from '../../../src/engine/teamProtocol';
import { sharedByOf, writeBase } from '../../../src/core/team/localState';
import { parseMemoryDocument, patchFor, renderMemory } from '../../../src/extension/memories/memoryFsFormat';
import * as t from '../../../src/extension/team/teamText';
import { openMemory } from '../../helpers/memoryFixture';

const NOW = new Date('2026-11-28T08:00:00.000Z');
type Connected = Extract<TeamOverview, { connected: true }>;
const status = (over: Partial<Connected> = {}): Connected => ({
  connected: true,
  state: 'synced',
  server: 'ana@db.example.com:5432/team_memory',
  schema: 'am_0123',
  author: 'ana',
  machine: 'ana-laptop/1a2b3c4d',
  waiting: 0,
  conflicts: 0,
  lastSyncAt: '2026-11-28T07:58:00.000Z',
  ...over,
});

test('the status item: synced, N waiting, offline (with what waits), conflict, connecting', () => {
  assert.equal(t.teamStatusText(status()), '$(cloud) Team: synced');
  assert.equal(t.teamStatusText(status({ state: 'waiting', waiting: 3 })), '$(cloud-upload) Team: 3 waiting');
  assert.equal(t.teamStatusText(status({ state: 'offline', waiting: 1 })), '$(debug-disconnect) Team: offline, 1 waiting');
  assert.equal(t.teamStatusText(status({ state: 'offline' })), '$(debug-disconnect) Team: offline');
  assert.equal(t.teamStatusText(status({ state: 'conflict', conflicts: 1 })), '$(warning) Team: 1 conflict');
  assert.equal(t.teamStatusText(status({ state: 'conflict', conflicts: 2 })), '$(warning) Team: 2 conflicts');
  assert.equal(t.teamStatusText(status({ state: 'connecting' })), '$(sync~spin) Team: connecting');
});

test('the click says what the state means, who shares from where, and when it last synced', () => {
  assert.deepEqual(t.teamStatusSentences(status(), NOW), [
    'Synced with the team memory server ana@db.example.com:5432/team_memory.',
    'You share as ana from ana-laptop. Last synced 2 minutes ago.',
  ]);
  const offline = t.teamStatusSentences(status({ state: 'offline', waiting: 2, lastError: 'connect ECONNREFUSED 127.0.0.1:5432' }), NOW);
  assert.equal(
    offline[0],
    'Offline: the team memory server ana@db.example.com:5432/team_memory cannot be reached (connect ECONNREFUSED 127.0.0.1:5432).',
  );
  assert.match(offline[1]!, /keeps working here/);
  assert.equal(offline[2], '2 changes made here wait to be sent.');
  const conflict = t.teamStatusSentences(status({ state: 'conflict', conflicts: 1 }), NOW);
  assert.equal(conflict[0], '1 memory was changed here and by someone else at the same time.');
  assert.match(conflict[1]!, /Suggestions view/);
  assert.match(t.teamStatusSentences(status({ lastSyncAt: null }), NOW).at(-1)!, /Not synced yet\.$/);
});

test("a conflict's row leads with who else changed it; a won delete says so", () => {
  const c: TeamConflictInfo = {
    id: 'c1',
    memoryId: 'm1',
    serverAuthor: 'ben',
    local: { title: '', content: 'Deploys go through staging first, with a smoke test' } as TeamConflictInfo['local'],
    current: { title: '', content: 'Deploys go through staging first and need a second reviewer', deletedAt: null },
    createdAt: '2026-11-28T07:59:00.000Z',
  };
  assert.equal(t.conflictLabel(c), 'Changed by ben and by you · Deploys go through staging first and need a second reviewer');
  assert.equal(
    t.conflictLabel({ ...c, current: { ...c.current!, deletedAt: '2026-11-28T07:59:00.000Z' } }).split(' · ')[0],
    'Deleted by ben, edited by you',
  );
  assert.equal(t.conflictLabel({ ...c, serverAuthor: null }).split(' · ')[0], 'Changed by someone else and by you');
  assert.deepEqual(t.conflictSides(c), { mine: c.local.content, theirs: c.current!.content });
});

test("another person's contradicting memory reads as theirs against yours, with both authors and what each choice does", () => {
  const c: TeamConflictInfo = {
    id: 'r1',
    memoryId: 'mine',
    serverAuthor: 'ana',
    local: { title: '', content: 'Staging deploys use rolling releases.' } as TeamConflictInfo['local'],
    current: { title: '', content: 'Staging deploys use blue-green releases.', deletedAt: null },
    createdAt: '2026-11-28T07:59:00.000Z',
    contradiction: { theirMemoryId: 'theirs', reason: 'Ana says blue-green is used.' },
  };
  assert.equal(t.conflictLabel(c), 'ana says otherwise · Staging deploys use rolling releases.');
  assert.deepEqual(t.conflictSides(c), { mine: c.local.content, theirs: c.current!.content });
  const tip = t.conflictTip(c);
  assert.equal(tip.mine, 'Yours');
  assert.equal(tip.theirs, "ana's memory");
  assert.equal(
    tip.footer,
    "The pipeline found that ana's memory says otherwise: Ana says blue-green is used. Keep theirs to retire yours (you can restore it), or keep yours to keep both.",
  );
  const edit = t.conflictTip({ ...c, contradiction: undefined }, new Date('2026-11-28T08:00:00.000Z'));
  assert.equal(edit.theirs, 'Theirs (by ana, kept now)');
  assert.match(edit.footer, /^Changed at the same time .+\. Keep yours or theirs\.$/);
});

test('Connect reads "host" and "host:port", and says what to write otherwise; the secret key is the server label', () => {
  assert.deepEqual(t.parseServer('db.example.com'), { host: 'db.example.com', port: 5432 });
  assert.deepEqual(t.parseServer(' 127.0.0.1:5433 '), { host: '127.0.0.1', port: 5433 });
  assert.deepEqual(t.parseServer('[::1]:6000'), { host: '::1', port: 6000 });
  assert.match(t.parseServer('db example') as string, /host name or address/);
  assert.match(t.parseServer('db:70000') as string, /1 to 65535/);
  assert.equal(t.secretKey('ana@db:5432/team'), 'agentMemory.team/ana@db:5432/team');
});

test("who made a memory's shared version is read from the store and shown in its document, which stays unedited", async () => {
  const { store, svc } = await openMemory();
  const a = svc.create({ content: 'Release tags are signed with the team key.' });
  const b = svc.create({ content: 'Integration tests need the docker daemon.' });
  assert.ok(a.status === 'created' && b.status === 'created');
  store.transaction((tx) => writeBase(tx, a.memory.id, { serverSeq: 4, stateHash: 'h', author: 'ben', machine: 'ben-desktop/0f0f0f0f' }));
  const by = sharedByOf(store, [a.memory.id, b.memory.id]);
  assert.deepEqual([...by.entries()], [[a.memory.id, { author: 'ben', machine: 'ben-desktop/0f0f0f0f' }]]);
  assert.equal(t.sharedByText(by.get(a.memory.id)!), 'ben on ben-desktop');
  assert.equal(t.sharedByText({ author: 'cy', machine: null }), 'cy');

  const m = { ...a.memory, sharedBy: by.get(a.memory.id)! };
  const text = renderMemory(m);
  assert.match(text.split('\n')[2]!, /^# Team memory: last shared version by ben on ben-desktop$/);
  assert.deepEqual(patchFor(parseMemoryDocument(text, m), m), {}, 'the header is a comment, not an edit');
  assert.ok(!renderMemory(b.memory).includes('Team memory'), 'a memory never shared has no such line');
  await store.close();
});
