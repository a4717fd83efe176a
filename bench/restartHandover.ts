/**
 * Restart Engine in the window that owns a project's store, with a second window connected: how
 * long until the other window is back (its first request answered), against the baseline of the
 * same run — the restarting window's own time back (the store reopened in a fresh engine worker);
 * engine workers started per restart; whether the restarting window kept the store.
 *
 *   npm run build && node --import tsx bench/restartHandover.ts [rounds] [--compare <checkout>]
 *
 * `--compare`: the same rounds, alternating, against another checkout of Agent Memory (its
 * src/ and a built dist/engine.js: `git worktree add /tmp/main main && (cd /tmp/main && ln -s
 * $PWD/node_modules && node esbuild.mjs)`). Rounds stay within two minutes of each other, as a
 * person's restarts would; keep them at 5 or fewer against an older checkout, whose clients
 * counted each restart as a crash and gave up at the sixth.
 */
import { Worker } from 'node:worker_threads';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

interface Variant {
  name: string;
  root: string;
}

interface Round {
  otherBackMs: number;
  ownerBackMs: number;
  workerStarts: number;
  ownerKeptStore: boolean;
}

/** A source file of `v`'s checkout: its path now, else where a checkout before the engine's split had it. */
function inCheckout(v: Variant, file: string, before: string): string {
  const now = path.join(v.root, file);
  return fs.existsSync(now) ? now : path.join(v.root, before);
}

/** Two windows on one store, with the client and transport of `v`'s checkout (typed as this one's). */
async function twoWindows(v: Variant, index: number) {
  const { EngineClient } = (await import(
    inCheckout(v, 'src/engine/client/engineClient.ts', 'src/engine/client.ts')
  )) as typeof import('../src/engine/client/engineClient');
  const { SharedTransport } = (await import(
    inCheckout(v, 'src/engine/client/sharedTransport.ts', 'src/engine/transport/sharedTransport.ts')
  )) as typeof import('../src/engine/client/sharedTransport');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `am-restart-${index}-`));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const window = (name: string) => {
    let transport: InstanceType<typeof SharedTransport> | undefined;
    const starts = { n: 0 };
    const client = new EngineClient({
      init: {
        workspaceRoot: ws,
        home: path.join(dir, 'home'),
        storageDir: path.join(dir, `${name}-storage`),
        globalStorageDir: path.join(dir, `${name}-global`),
        purpose: `VS Code window ${name}`,
      },
      // As src/extension/host/engineHost.ts does it (an older checkout ignores the hint).
      spawn: (init, hint) =>
        (transport = new SharedTransport({
          init,
          client: name,
          ...(hint?.ownerRestarting ? { waitForOwnerMs: 15_000 } : {}),
          spawnWorker: (i) => {
            starts.n++;
            return new Worker(path.join(v.root, 'dist/engine.js'), { workerData: i });
          },
        })),
    });
    return { client, starts, role: (): string | undefined => transport?.role };
  };
  const a = window('A');
  await a.client.start();
  const b = window('B');
  await b.client.start();
  return { a, b, close: async () => Promise.all([a.client.shutdown(), b.client.shutdown()]) };
}

async function round(w: Awaited<ReturnType<typeof twoWindows>>): Promise<Round> {
  const [owner, other] = w.a.role() === 'owner' ? [w.a, w.b] : [w.b, w.a];
  const startsBefore = owner.starts.n + other.starts.n;
  const left = new Promise<void>((resolve) => {
    const sub = other.client.onStateChange((s) => {
      if (s.state === 'ready') return;
      sub.dispose();
      resolve();
    });
  });
  const t0 = performance.now();
  let ownerBackMs = 0;
  const restarted = owner.client.restart().then(() => (ownerBackMs = performance.now() - t0));
  await left;
  await other.client.whenReady();
  await other.client.request('stats', {});
  const otherBackMs = performance.now() - t0;
  await restarted;
  return {
    otherBackMs: Math.round(otherBackMs),
    ownerBackMs: Math.round(ownerBackMs),
    workerStarts: owner.starts.n + other.starts.n - startsBefore,
    ownerKeptStore: owner.role() === 'owner',
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
  const compareAt = args.indexOf('--compare');
  const variants: Variant[] = [{ name: 'this checkout', root: ROOT }];
  if (compareAt >= 0 && args[compareAt + 1])
    variants.push({ name: `compare (${args[compareAt + 1]})`, root: path.resolve(args[compareAt + 1]!) });
  const worlds = await Promise.all(variants.map((v, i) => twoWindows(v, i)));
  const results = variants.map(() => [] as Round[]);
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < variants.length; k++) {
      const r = await round(worlds[k]!);
      results[k]!.push(r);
      process.stderr.write(`${variants[k]!.name}, round ${i + 1}: ${JSON.stringify(r)}\n`);
    }
  }
  await Promise.all(worlds.map((w) => w.close()));
  const summary = variants.map((v, k) => {
    const rs = results[k]!;
    const other = median(rs.map((r) => r.otherBackMs));
    const owner = median(rs.map((r) => r.ownerBackMs));
    return {
      variant: v.name,
      rounds: rs.length,
      other_window_back_p50_ms: other,
      restarting_window_back_p50_ms: owner,
      other_vs_restarting_ratio: Number((other / owner).toFixed(2)),
      worker_starts_per_restart: Number((rs.reduce((n, r) => n + r.workerStarts, 0) / rs.length).toFixed(1)),
      restarting_window_kept_store: `${rs.filter((r) => r.ownerKeptStore).length}/${rs.length}`,
    };
  });
  console.log(JSON.stringify({ machine: `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`, summary }, null, 2));
  for (const s of summary)
    process.stderr.write(
      `${s.variant}: the other window back in ${s.other_window_back_p50_ms} ms (p50), the restarting one in ${s.restarting_window_back_p50_ms} ms; ` +
        `${s.worker_starts_per_restart} worker starts per restart; the restarting window kept the store ${s.restarting_window_kept_store}\n`,
    );
  process.exit(0);
}

void main();
