/**
 * The cost of going through the store's socket (ARCHITECTURE.md "One owner, many clients"):
 * search and create p50 / p99 at N memories, from the owner's window (EngineClient → worker
 * port) and from a client (EngineClient → Unix socket → the same worker), alternating in one run.
 * `npm run bench -- --sections share --sizes 10000` (300 rounds), or
 * `node --import tsx bench/share.bench.ts 10000 1000` for another number of rounds (JSON on stdout).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient } from '../src/engine/client/engineClient';
import type { EngineInit } from '../src/engine/protocol';
import { SharedTransport } from '../src/engine/client/sharedTransport';
import { spawnTsWorker } from '../test/engine/harness';
import { syntheticMemories } from './corpus';
import { percentile, round } from './stats';

const DEFAULT_ROUNDS = 300;

function shared(init: EngineInit, name: string): { client: EngineClient; role: () => string | undefined } {
  let t: SharedTransport | undefined;
  const client = new EngineClient({ init, spawn: (i) => (t = new SharedTransport({ init: i, spawnWorker: spawnTsWorker, client: name })) });
  return { client, role: () => t?.role };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The figures at N memories over `rounds` rounds (section `share` of bench/index.ts). */
export async function runShareBench(N: number, ROUNDS = DEFAULT_ROUNDS): Promise<object> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'am-share-bench-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const init: EngineInit = {
    home: path.join(root, 'home'),
    workspaceRoot: ws,
    settings: { 'embedding.provider': 'hash', 'memory.pipelineV2.enabled': false },
  };
  const owner = shared(init, 'bench owner');
  await owner.client.start();
  const file = path.join(root, 'corpus.jsonl');
  const lines = [JSON.stringify({ format: 'agent-memory-jsonl', version: 1 })];
  for (const m of syntheticMemories(N)) lines.push(JSON.stringify(m));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const t0 = performance.now();
  const imported = await owner.client.request('import', { path: file });
  const importMs = performance.now() - t0;
  const client = shared(init, 'bench client');
  await client.client.start();
  if (owner.role() !== 'owner' || client.role() !== 'client') throw new Error(`roles: ${owner.role()} / ${client.role()}`);
  const queries = [...syntheticMemories(ROUNDS, 7)].map((m) => m.title);
  const samples = {
    search_owner: [] as number[],
    search_client: [] as number[],
    create_owner: [] as number[],
    create_client: [] as number[],
  };
  // Warm-up, then alternate owner / client so both see the same machine load.
  for (const q of queries.slice(0, 20))
    await Promise.all([owner.client.request('search', { query: q }), client.client.request('search', { query: q })]);
  for (let i = 0; i < ROUNDS; i++) {
    const q = queries[i]!;
    const [first, second] = i % 2 ? [owner, client] : [client, owner];
    const a = await timed(() => first.client.request('search', { query: q, recordAccess: false }));
    const b = await timed(() => second.client.request('search', { query: q, recordAccess: false }));
    samples[first === owner ? 'search_owner' : 'search_client'].push(a);
    samples[second === owner ? 'search_owner' : 'search_client'].push(b);
    // Creates alternate too: the second write of a round pays for what the first one set off
    // (its embedding, the change event), so a fixed order would bill that to one side.
    const create = (e: typeof owner, who: string) =>
      timed(() =>
        e.client.request('memory.create', { content: `${who} bench note ${i}: ${q} ${q.split(' ').reverse().join(' ')} flag-${i}` }),
      );
    const c = await create(first, first === owner ? 'owner' : 'client');
    const d = await create(second, second === owner ? 'owner' : 'client');
    samples[first === owner ? 'create_owner' : 'create_client'].push(c);
    samples[second === owner ? 'create_owner' : 'create_client'].push(d);
  }
  const stat = (xs: number[]) => ({ p50_ms: round(percentile(xs, 50)), p99_ms: round(percentile(xs, 99)) });
  const out = {
    memories: imported.created,
    import_ms: Math.round(importMs),
    rounds: ROUNDS,
    ...Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stat(v)])),
    added_p50_ms: {
      search: round(percentile(samples.search_client, 50) - percentile(samples.search_owner, 50)),
      create: round(percentile(samples.create_client, 50) - percentile(samples.create_owner, 50)),
    },
  };
  await client.client.shutdown();
  await owner.client.shutdown();
  fs.rmSync(root, { recursive: true, force: true });
  return out;
}

if (require.main === module) {
  runShareBench(Number(process.argv[2] ?? 10_000), Number(process.argv[3] ?? DEFAULT_ROUNDS)).then(
    (out) => process.stdout.write(`${JSON.stringify(out, null, 2)}\n`),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
