// Show Diagnostics for people: sentences about memories, search, the pipeline and what needs
// attention; no store folders, sequence numbers or internal names (those stay in the log).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnosticsSummary } from '../../../src/extension/diagnostics/diagnosticsSummary';
import type { EngineDiagnostics, PipelineDiagnostics, StoreInfo } from '../../../src/engine/protocol';

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

/** The Pipeline view's data: Ollama and its model, the maintenance health (dead jobs). */
const pipelineDiag = (x: { reachable?: boolean; modelPresent?: boolean; dead?: number } = {}): PipelineDiagnostics => ({
  status: { state: 'idle', mode: 'off', jobs: {}, detail: '' },
  health: {
    score: 1,
    queue: { total: 0, pending: 0, leased: 0, dead: x.dead ?? 0, deadRate: 0, staleLeases: 0 },
    index: { ftsRows: 1, memoryRows: 1, activeMemories: 1, consistent: true },
    storage: { tombstones: 0, total: 1, tombstoneRatio: 0 },
    at: '2026-01-01T00:00:00.000Z',
  },
  completedJobs: 0,
  llm: {
    provider: 'ollama',
    url: 'http://127.0.0.1:11434',
    model: 'qwen3:4b',
    reachable: x.reachable ?? true,
    modelPresent: x.modelPresent ?? true,
  },
});

const attention = (text: string) => /Needs attention:\n((?:- .*\n)+)/.exec(text)?.[1] ?? '';

test('the pipeline on but waiting for Ollama is not "working": the summary says what waits and what to do', () => {
  const e = diag({ pipeline: { state: 'running', mode: 'shadow', jobs: { pending: 3 }, detail: '3 jobs waiting, 0 processed.' } });
  const text = diagnosticsSummary(e, undefined, pipelineDiag({ reachable: false }));
  assert.doesNotMatch(text, /Everything is working/);
  assert.match(
    attention(text),
    /^- The pipeline is on but Ollama does not answer at http:\/\/127\.0\.0\.1:11434: 3 jobs wait until it does\. Start Ollama, or switch the pipeline off \(Agent Memory: Switch Pipeline Mode…\)\.$/m,
  );
  const noModel = diagnosticsSummary(e, undefined, pipelineDiag({ modelPresent: false }));
  assert.match(
    attention(noModel),
    /^- The pipeline is on but Ollama does not have the model qwen3:4b: 3 jobs wait until it is installed \("Agent Memory: Switch Pipeline Mode…" offers to pull it\)\.$/m,
  );
  // Without the Pipeline view's probe, the engine's own state still counts.
  const slow = diag({
    pipeline: {
      state: 'degraded',
      mode: 'controlled',
      jobs: { pending: 1 },
      detail: 'Waiting for the model since 2026-01-01T00:00:00.000Z; 1 job waiting.',
      trouble: { kind: 'model-slow', since: '2026-01-01T00:00:00.000Z' },
    },
  });
  assert.match(
    attention(diagnosticsSummary(slow)),
    /^- The pipeline waits for its model, which is slow to answer or times out: 1 job waits\.$/m,
  );
  const failing = diag({
    pipeline: {
      state: 'degraded',
      mode: 'full',
      jobs: { pending: 2, leased: 1 },
      detail: '4 failures in a row (is Ollama running at http://127.0.0.1:11434?); 3 jobs waiting.',
      trouble: { kind: 'failing', failures: 4 },
    },
  });
  assert.match(attention(diagnosticsSummary(failing)), /^- The pipeline failed 4 times in a row: 3 jobs wait\. Is Ollama running\?$/m);
  const stopped = diag({
    pipeline: { state: 'degraded', mode: 'shadow', jobs: { pending: 2 }, detail: '…', trouble: { kind: 'not-running' } },
  });
  assert.match(
    attention(diagnosticsSummary(stopped)),
    /^- The pipeline is on but its worker is not running: 2 jobs wait\. See the log\.$/m,
  );
});

test('jobs waiting behind a pause, failed jobs, a fallback embedder and a full disk each need attention', () => {
  const paused = diag({
    pipeline: {
      state: 'idle',
      mode: 'controlled',
      jobs: { pending: 2 },
      detail: 'Paused: 2 jobs wait until the pipeline is resumed.',
      paused: true,
    },
  });
  assert.match(
    attention(diagnosticsSummary(paused)),
    /^- The pipeline is paused: 2 jobs wait until you resume it \(Agent Memory: Resume Pipeline\)\.$/m,
  );
  const pausedEmpty = diag({ pipeline: { state: 'idle', mode: 'controlled', jobs: {}, detail: '', paused: true } });
  assert.match(diagnosticsSummary(pausedEmpty), /^Everything is working\.$/m, 'a pause with nothing waiting is a choice, not a problem');

  const dead = diagnosticsSummary(diag(), undefined, pipelineDiag({ dead: 2 }));
  assert.match(attention(dead), /^- 2 pipeline jobs failed for good: the Pipeline view lists them under Queue\.$/m);

  const fallback = diag({
    embedder: {
      provider: 'hash',
      space: 'hash-256',
      reason: 'Using the hash embedder (lexical only) because the built-in model could not be loaded (boom).',
      degraded: true,
    },
  });
  const fb = diagnosticsSummary(fallback);
  assert.match(
    attention(fb),
    /^- Search by meaning is reduced: the built-in model could not be loaded, so a fallback that matches words only is used \(the log says why\)\.$/m,
  );
  assert.doesNotMatch(fb, /Everything is working/);
  const ollamaDown = diag({
    embedder: { provider: 'ollama', space: 'ollama-nomic', reason: 'Using Ollama … but it is not reachable', degraded: true },
  });
  assert.match(
    attention(diagnosticsSummary(ollamaDown)),
    /^- Search by meaning waits for Ollama, which is set as the embedding model but does not answer: new memories wait for their vectors\.$/m,
  );
  const none = diagnosticsSummary(diag({ embedder: undefined }));
  assert.match(attention(none), /^- Search by meaning is off: no embedding model could be opened, so search matches keywords only\.$/m);

  const full = diagnosticsSummary(
    diag({
      stats: {
        project: store({
          memories: 1,
          health: { state: 'disk_full', detail: 'The disk is full: writes wait until there is room.', since: 'x' },
        }),
        global: store({}),
        suggestionsPending: 0,
      },
    }),
  );
  assert.match(attention(full), /^- The project store cannot be written now: The disk is full: writes wait until there is room\.$/m);
});
