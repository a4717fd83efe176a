// Show Diagnostics for people: sentences about memories, search, the pipeline and what needs
// attention; no store folders, sequence numbers or internal names (those stay in the log).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnosticsSummary } from '../../src/extension/diagnosticsSummary';
import type { EngineDiagnostics, StoreInfo } from '../../src/engine/protocol';

const store = (x: Partial<StoreInfo>): StoreInfo =>
  ({
    dir: '/home/u/.agent-memory/projects/abc',
    readOnly: false,
    projectId: 'p',
    memories: 0,
    deleted: 0,
    byType: {},
    pendingEmbeddings: 0,
    seq: 41,
    snapshotSeq: 40,
    logBytes: 123,
    snapshotBytes: 4567,
    schemaVersion: 7,
    openMs: 12,
    ...x,
  }) as StoreInfo;

const diag = (x: Partial<EngineDiagnostics> = {}): EngineDiagnostics => ({
  protocolVersion: 9,
  projectId: 'github.com/example-org/sample-project',
  projectIdKind: 'git-remote',
  node: 'v20',
  uptimeMs: 1000,
  openMs: 30,
  stats: { project: store({ memories: 1, deleted: 2 }), global: store({ memories: 3 }), suggestionsPending: 0 },
  pipeline: { state: 'off', mode: 'off', jobs: {}, detail: 'disabled by memory.pipelineV2.enabled' },
  config: { overridden: [], issues: [] },
  warnings: [],
  embedder: { provider: 'builtin', space: 'builtin-use-lite-512', reason: 'Ollama not reachable', degraded: false },
  ...x,
});

test('a healthy engine: what it holds, how it searches, what the pipeline does — in sentences', () => {
  const text = diagnosticsSummary(diag());
  assert.match(text, /^Everything is working\.$/m);
  assert.match(
    text,
    /^Memories: 1 memory in this project \(github\.com\/example-org\/sample-project\), 3 shared across projects\. 2 deleted memories can still be restored\.$/m,
  );
  assert.match(text, /^Search: by keywords and by meaning, with the built-in offline model\.$/m);
  assert.match(text, /^Pipeline: off — memories are stored exactly as given\.$/m);
  for (const internal of ['/home/u/.agent-memory', 'seq', 'snapshot', 'builtin-use-lite-512', 'pipelineV2', 'schema'])
    assert.ok(!text.includes(internal), `no "${internal}"`);
});

test('what needs attention comes first; a stopped engine says what to do', () => {
  const text = diagnosticsSummary(
    diag({
      stats: { project: store({ memories: 5, readOnly: true }), global: store({}), suggestionsPending: 1 },
      config: { overridden: [], issues: [{ severity: 'error', key: 'memory.x', message: 'bad' }] },
    }),
  );
  assert.match(
    text,
    /Needs attention:\n- A memory store is read-only[^\n]*\n- 1 setting has a problem: see the Problems view\.\n- 1 pair of similar memories waits in the Suggestions view\./,
  );
  assert.match(diagnosticsSummary(undefined, 'failed'), /^Agent Memory is not running: failed\./);
});
