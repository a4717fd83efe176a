/**
 * Opens a store in a process of its own, as a VS Code window's engine worker does on start,
 * and prints how long Store.open took. The store bench spawns it so the figure does not depend
 * on what the bench's own process did before (it built and closed the same database there).
 *
 *   node --import tsx bench/open.child.ts <storeDir>
 * prints one JSON object: { open_ms, replayed_records, verified_by }. Closes without a snapshot,
 * so the store is left as it was found.
 */
import { Store } from '../src/core/store/store';
import { UserKeyring } from '../src/core/crypto/userKeys';

export interface OpenResult {
  open_ms: number;
  /** CPU time of the open (user + system), less sensitive than wall time to a loaded machine. */
  open_cpu_ms: number;
  replayed_records: number;
  verified_by: string;
}

async function main(dir: string): Promise<OpenResult> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  // An encrypted store opens with the recovery key in AGENT_MEMORY_RECOVERY_KEY (bench/encryption.bench.ts).
  const keys = process.env.AGENT_MEMORY_RECOVERY_KEY ? { keys: new UserKeyring({ env: process.env }) } : {};
  const store = await Store.open({ dir, ...keys });
  const openMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const s = store.stats();
  await store.close({ snapshot: false });
  return {
    open_ms: Math.round(openMs * 10) / 10,
    open_cpu_ms: Math.round((cpu.user + cpu.system) / 100) / 10,
    replayed_records: s.replayedRecords,
    verified_by: s.snapshotVerifiedBy,
  };
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node --import tsx bench/open.child.ts <storeDir>\n');
  process.exit(2);
}
main(dir).then(
  (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
  (e: unknown) => {
    process.stderr.write(`open.child: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
