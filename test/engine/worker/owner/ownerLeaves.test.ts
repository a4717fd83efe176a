// @tier durability
// Real `agent-memory` processes: one owns the store (`agent-memory mcp`) and goes away — it
// exits (its stdin closes), or it is killed with SIGKILL — while six loops of `agent-memory`
// processes write. Each process that owns the store in turn exits when its own command is done,
// so owners keep coming and going. The embedder is a slow fake Ollama (each embedding takes
// EMBED_MS), so writes are in flight whenever an owner leaves.
//
// Every `add` must succeed, stored exactly once: a create whose owner went away goes again with
// its idempotency key, as often as owners go away; a search in flight when the owner is killed
// goes again too. When the owner leaves gracefully with an update in flight, the update succeeds
// too: a closing owner answers what it accepted and refuses the rest (engine_closing), which the
// client sends to the next owner.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../../src/core/store/store';
import type { CreateMemoryResult, MemoryRecord } from '../../../../src/engine/protocol';
import { projectStoreDir } from '../../../../src/engine/socket/endpoint';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { CLI_TS, ROOT, runCli, type CliRun } from '../../../helpers/cliProcess';
import { FakeOllama } from '../../../helpers/fakeOllama';
import { until } from '../../../helpers/until';

const LOOPS = 6;
const ADDS_PER_LOOP = Number(process.env.OWNER_LEAVES_ADDS ?? 3);
const EMBED_MS = 800;
/** Longer than the others, shorter than a closing owner's drain (server/drain.ts). */
const UPDATE_EMBED_MS = 2000;
const SEED = 'Releases are cut from the main branch every second Tuesday.';
const UPDATED = 'Releases are cut from the release branch every second Wednesday since March.';
const QUERY = 'which step must run before the kernel build';
/** The search is in flight until a create is too (creates start after it). */
const QUERY_EMBED_MS = 6000;
const WORDS = ['deploy', 'cache', 'schema', 'vault', 'queue', 'lint', 'proxy', 'kernel', 'fixture', 'locale', 'gradle', 'webpack'];

/** A sentence unlike the others (no near-duplicate skip): words picked by loop and index. */
function noteText(loop: number, i: number): string {
  const w = (k: number) => WORDS[(loop * 7 + i * 5 + k * 3) % WORDS.length]!;
  return `Loop ${loop} note ${i}: the ${w(0)} step must run before ${w(1)} because ${w(2)} reads token-${loop}-${i}.`;
}

function lockPid(dir: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dir, 'store.lock'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

interface Outcome {
  command: string;
  text: string;
  run: CliRun;
}

interface Row {
  id: string;
  content: string;
  key: string | null;
  version: number;
  deleted: number;
}

/** Six loops of `add` processes, each add waiting for the one before it. */
async function addLoops(ws: string, env: Record<string, string>, outcomes: Outcome[]): Promise<void> {
  const loop = async (l: number) => {
    for (let i = 0; i < ADDS_PER_LOOP; i++) {
      const text = noteText(l, i);
      outcomes.push({ command: 'add', text, run: await runCli(['add', text, '--workspace', ws, '--json'], env) });
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, l) => loop(l)));
}

function checkStore(rows: Row[], outcomes: Outcome[]): void {
  for (const o of outcomes.filter((x) => x.command === 'add')) {
    if (o.run.code !== 0) {
      assert.ok(!rows.some((r) => r.content === o.text), `an add that failed is not stored: ${o.text} (${o.run.stderr.trim()})`);
      continue;
    }
    const result = JSON.parse(o.run.stdout) as CreateMemoryResult;
    assert.equal(result.status, 'created', o.text);
    if (result.status !== 'created') continue;
    const key = result.memory.metadata?.idempotencyKey;
    assert.equal(rows.filter((r) => r.key === key).length, 1, `an add that succeeded is stored exactly once: ${o.text}`);
    assert.ok(
      rows.some((r) => r.id === result.memory.id),
      `its memory is in the store: ${o.text}`,
    );
  }
  for (const o of outcomes.filter((x) => x.command === 'update' && x.run.code === 0)) {
    const m = JSON.parse(o.run.stdout) as MemoryRecord;
    const row = rows.find((r) => r.id === m.id);
    assert.equal(row?.content, o.text, 'the update is in the store');
    assert.equal(row?.version, 2, 'applied once');
  }
  const keys = rows.map((r) => r.key).filter((k): k is string => !!k);
  assert.equal(new Set(keys).size, keys.length, 'no idempotency key applied twice');
}

async function scenario(how: 'exits' | 'is killed'): Promise<void> {
  const root = tmpDir('am-owner-leaves-');
  const home = path.join(root, 'home');
  const ws = fakeClone(root, 'repo');
  // The update and the search below take longer to embed: they are surely in flight when their owner goes.
  const ollama = await FakeOllama.start({
    embedDelayMs: (inputs) =>
      inputs.some((t) => t.includes(UPDATED)) ? UPDATE_EMBED_MS : inputs.some((t) => t.includes(QUERY)) ? QUERY_EMBED_MS : EMBED_MS,
  });
  fs.writeFileSync(path.join(ws, 'agent.yaml'), `embedding:\n  provider: ollama\n  ollama_url: ${ollama.url}\n`);
  const env = { AGENT_MEMORY_HOME: home };
  const dir = await projectStoreDir({ home, workspaceRoot: ws });
  const embedding = (pred: (text: string) => boolean) => () =>
    ollama.requestsTo('embed').some((r) => ([] as unknown[]).concat(r.body?.input).some((t) => pred(String(t))));

  const seed = JSON.parse((await runCli(['add', SEED, '--workspace', ws, '--json'], env)).stdout) as Extract<
    CreateMemoryResult,
    { memory: unknown }
  >;
  const owner = spawn(process.execPath, ['--import', 'tsx', CLI_TS, 'mcp', '--workspace', ws], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const ownerExited = new Promise<void>((r) => owner.once('exit', () => r()));
  try {
    await until('the MCP server to own the store', () => lockPid(dir) === owner.pid, { timeoutMs: 300_000, intervalMs: 25 });
    const outcomes: Outcome[] = [];
    const adds = addLoops(ws, env, outcomes);
    // The owner goes away with a client's write in flight: an update (it exits) or a create (it is killed).
    if (how === 'exits') {
      const update = runCli(['update', seed.memory.id, '--content', UPDATED, '--workspace', ws, '--json'], env).then((run) =>
        outcomes.push({ command: 'update', text: UPDATED, run }),
      );
      await until(
        "the update's embedding",
        embedding((t) => t.includes(UPDATED)),
        { timeoutMs: 300_000, intervalMs: 25 },
      );
      owner.stdin!.end();
      await update;
    } else {
      const search = runCli(['search', QUERY, '--workspace', ws, '--json'], env).then((run) =>
        outcomes.push({ command: 'search', text: QUERY, run }),
      );
      await until(
        "the search's query embedding",
        embedding((t) => t.includes(QUERY)),
        { timeoutMs: 300_000, intervalMs: 25 },
      );
      await until(
        "a client's create embedding",
        embedding((t) => t.includes('Loop ')),
        { timeoutMs: 300_000, intervalMs: 25 },
      );
      owner.kill('SIGKILL');
      await search;
    }
    await ownerExited;
    await adds;

    const store = await Store.open({ dir, readOnly: true });
    try {
      const rows = store.all<Row>(
        `SELECT id, content, version, deleted_at IS NOT NULL AS deleted, json_extract(metadata_json, '$.idempotencyKey') AS key
           FROM memories`,
      );
      const failures = outcomes.filter((o) => o.run.code !== 0).map((o) => `${o.command}: ${o.run.stderr.trim()}`);
      const search = outcomes.find((o) => o.command === 'search' && o.run.code === 0);
      if (search) assert.ok(Array.isArray((JSON.parse(search.run.stdout) as { hits: unknown }).hits), 'the search in flight is answered');
      checkStore(rows, outcomes);
      assert.deepEqual(failures, [], `no command fails because its owner went away (${outcomes.length} commands)`);
    } finally {
      await store.close();
    }
  } finally {
    owner.kill('SIGKILL');
    await ollama.close();
  }
}

test(
  'the owning CLI exits with an update in flight while six loops of `agent-memory add` write: all succeed, each applied once',
  { timeout: 900_000 },
  () => scenario('exits'),
);

test(
  'the owning CLI is killed while six loops of `agent-memory add` processes write: every add succeeds, stored once',
  { timeout: 900_000 },
  () => scenario('is killed'),
);
