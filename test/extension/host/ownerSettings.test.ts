// Whose settings the shared engine runs with (src/extension/host/ownerSettings.ts): a window compares
// its own settings and pipeline mode with those of the window that serves the project's store.
// Same folder: the person's settings are the same files, so a difference means the owner missed a
// change (this window's fresh reading wins). Another folder (a clone or worktree): its workspace
// settings or agent.yaml may say otherwise: the person is told, in words, never silently.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareWithOwner, ownershipMessage } from '../../../src/extension/host/ownerSettings';

const P = 'memory.pipelineV2';
const shadow = { [`${P}.enabled`]: true, [`${P}.shadowMode`]: true, [`${P}.allowUpdateDelete`]: false, [`${P}.mutationsFrozen`]: false };

test('the same settings agree, whatever the folder; the same folder with other settings means the owner is behind', () => {
  assert.deepEqual(
    compareWithOwner(
      { settings: { ...shadow }, workspaceRoot: '/a', mode: 'shadow' },
      { settings: shadow, workspaceRoot: '/b', mode: 'shadow' },
    ),
    { kind: 'same' },
  );
  // Key order does not matter.
  const reversed = Object.fromEntries(Object.entries(shadow).reverse());
  assert.deepEqual(
    compareWithOwner(
      { settings: reversed, workspaceRoot: '/a', mode: 'shadow' },
      { settings: shadow, workspaceRoot: '/a', mode: 'shadow' },
    ),
    { kind: 'same' },
  );
  assert.deepEqual(
    compareWithOwner({ settings: shadow, workspaceRoot: '/a', mode: 'shadow' }, { settings: {}, workspaceRoot: '/a', mode: 'off' }),
    {
      kind: 'owner-behind',
    },
  );
});

test('another folder with other settings or another agent.yaml: what differs, the pipeline mode first', () => {
  const d = compareWithOwner(
    { settings: { 'search.default_limit': 5 }, workspaceRoot: '/clone-b', mode: 'off' },
    { settings: { ...shadow, 'search.default_limit': 7 }, workspaceRoot: '/clone-a', mode: 'shadow' },
  );
  assert.equal(d.kind, 'differ');
  assert.deepEqual(d.kind === 'differ' && d.mode, { here: 'off', there: 'shadow' });
  assert.deepEqual(d.kind === 'differ' && d.keys, [
    'agentMemory.pipeline.enabled',
    'agentMemory.pipeline.shadowMode',
    'agentMemory.pipeline.allowUpdateAndDelete',
    'agentMemory.pipeline.freezeWrites',
    'agentMemory.search.resultLimit',
  ]);
  // The same settings, but the other clone's agent.yaml turns the pipeline on.
  const yaml = compareWithOwner(
    { settings: {}, workspaceRoot: '/clone-b', mode: 'off' },
    { settings: {}, workspaceRoot: '/clone-a', mode: 'controlled' },
  );
  assert.deepEqual(yaml, { kind: 'differ', mode: { here: 'off', there: 'controlled' }, keys: [] });
});

test('a client whose owner runs other settings is told which, where, and that the owner’s are in use', () => {
  const differ = compareWithOwner(
    { settings: {}, workspaceRoot: '/w/clone-b', mode: 'off' },
    { settings: shadow, workspaceRoot: '/w/clone-a', mode: 'shadow' },
  );
  assert.equal(
    ownershipMessage({ role: 'client', agreement: differ, mode: 'shadow', ownerFolder: '/w/clone-a' }),
    "Agent Memory: the window that serves this project's memory (folder clone-a) has other settings than this one: " +
      'the pipeline is in shadow mode there, off here. Its settings are in use while it serves the memory.',
  );
  const keysOnly = compareWithOwner(
    { settings: { 'search.default_limit': 5 }, workspaceRoot: '/w/b', mode: 'off' },
    { settings: { 'search.default_limit': 7, 'search.min_score': 0.2 }, workspaceRoot: '/w/a', mode: 'off' },
  );
  assert.equal(
    ownershipMessage({ role: 'client', agreement: keysOnly, mode: 'off', ownerFolder: '/w/a' }),
    "Agent Memory: the window that serves this project's memory (folder a) has other settings than this one " +
      '(agentMemory.search.resultLimit and agentMemory.search.minScore). Its settings are in use while it serves the memory.',
  );
  // After a takeover the mode changed: said first.
  assert.equal(
    ownershipMessage({ role: 'client', agreement: differ, mode: 'off', before: 'shadow', ownerFolder: '/w/clone-a' }),
    "Agent Memory: the pipeline is now off (it was in shadow mode). The window that serves this project's memory (folder clone-a) " +
      'has other settings than this one: the pipeline is in shadow mode there, off here. Its settings are in use while it serves the memory.',
  );
  assert.equal(
    ownershipMessage({ role: 'client', agreement: { kind: 'same' }, mode: 'shadow', before: 'shadow' }),
    undefined,
    'nothing changed',
  );
});

test('a window that took the store over says when the pipeline mode changed with it; nothing when it did not', () => {
  assert.equal(
    ownershipMessage({ role: 'owner', mode: 'off', before: 'shadow' }),
    "Agent Memory: this window now serves the project's memory, with its own settings: the pipeline is now off (it was in shadow mode).",
  );
  assert.equal(ownershipMessage({ role: 'owner', mode: 'shadow', before: 'shadow' }), undefined);
  assert.equal(ownershipMessage({ role: 'owner', mode: 'full' }), undefined, 'nothing seen before: the first start');
  assert.equal(
    ownershipMessage({ role: 'client', agreement: { kind: 'same' }, mode: 'controlled', before: 'off' }),
    "Agent Memory: the pipeline is now in controlled mode (it was off): the window that serves this project's memory now runs it as this window's settings say.",
  );
});

test('an agent that serves the store (the MCP server) is named as a process, not a window', () => {
  const differ = compareWithOwner(
    { settings: {}, workspaceRoot: '/w/repo', mode: 'off' },
    { settings: {}, workspaceRoot: '/w/other', mode: 'controlled' },
  );
  assert.equal(
    ownershipMessage({
      role: 'client',
      agreement: differ,
      mode: 'controlled',
      ownerFolder: '/w/other',
      owner: 'agent-memory mcp (pid 4242)',
    }),
    "Agent Memory: the process that serves this project's memory (agent-memory mcp, folder other) has other settings than this one: " +
      'the pipeline is in controlled mode there, off here. Its settings are in use while it serves the memory.',
  );
});
