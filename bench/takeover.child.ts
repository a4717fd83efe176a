/**
 * One process of the takeover benchmark (bench/takeover.bench.ts): an EngineClient on the shared
 * store through SharedTransport, exactly as the CLI connects (src/cli/connect.ts: the default
 * backoff, the bundled engine worker when it becomes the owner).
 *
 *   node --import tsx bench/takeover.child.ts <home> <workspace> <name> <engine.js>
 *
 * Commands on stdin, one per line; answers on stdout, one JSON object per line, times as
 * milliseconds since the epoch (performance.timeOrigin + performance.now(), comparable across
 * the processes of one machine):
 *   (on start)   {"loaded":t}                   modules loaded, not connected yet
 *   start        {"ready":role,"t":t}           connected as a client, or the owner
 *   write <text> {"ack":id,"t":t} | {"fail":code,"t":t}
 *   exit         clean shutdown (an owner snapshots and releases the store), then the process ends
 */
import { Worker } from 'node:worker_threads';
import * as readline from 'node:readline';
import { EngineClient } from '../src/engine/client/engineClient';
import { EngineError } from '../src/engine/errors';
import { SharedTransport } from '../src/engine/client/sharedTransport';

const [home, workspaceRoot, name, enginePath] = process.argv.slice(2) as [string, string, string, string];
const now = () => performance.timeOrigin + performance.now();
const out = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);

// TAKEOVER_DEBUG=1: what the client and its transport do, with times, on stderr.
const debug = process.env.TAKEOVER_DEBUG ? (l: string) => process.stderr.write(`${Math.round(now())} ${name}: ${l}\n`) : undefined;
let transport: SharedTransport | undefined;
const client = new EngineClient({
  init: { home, workspaceRoot, purpose: `takeover bench ${name} (pid ${process.pid})` },
  spawn: (init) =>
    (transport = new SharedTransport({
      init,
      spawnWorker: (i) => {
        debug?.('starting an engine worker');
        return new Worker(enginePath, { workerData: i });
      },
      client: name,
      ...(debug ? { log: debug } : {}),
    })),
  ...(debug ? { log: debug } : {}),
});
if (debug)
  client.onStateChange((s) => debug(`state ${s.state}${s.reason ? ` (${s.reason})` : ''}${s.ready ? ` open ${s.ready.openMs} ms` : ''}`));

async function command(line: string): Promise<void> {
  const [verb, ...rest] = line.split(' ');
  if (verb === 'start') {
    await client.start();
    out({ ready: transport?.role, t: now() });
  } else if (verb === 'write') {
    try {
      const r = await client.request('memory.create', { content: rest.join(' ') });
      out({ ack: r.status === 'skipped' ? r.reason : r.memory.id, status: r.status, t: now() });
    } catch (e) {
      out({ fail: e instanceof EngineError ? e.code : String(e), message: (e as Error).message, t: now() });
    }
  } else if (verb === 'exit') {
    await client.shutdown(10_000);
    process.stdout.write('', () => process.exit(0));
  }
}

// The bench is gone: nobody reads the answers any more.
process.stdout.on('error', () => process.exit(0));
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  command(line).catch((e: unknown) => out({ error: String(e), t: now() }));
});
out({ loaded: now() });
