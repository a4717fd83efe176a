/**
 * `npm run soak`: the kill -9 soak with crash points and injected disk errors (see
 * test/fixtures/soakRunner.ts). Options: --kills N (default 200), --disk-errors N (default 30),
 * --dir DIR (default a fresh temp folder), --encrypted (the store encrypted at rest under a new
 * key, docs/encryption.md). Prints the figures; exits 1 if any acknowledged
 * write was lost, a failed write came back, or an integrity check failed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSoak } from '../test/fixtures/soakRunner';
import { newKey } from '../src/core/crypto/aead';
import { formatRecoveryKey } from '../src/core/crypto/recoveryKey';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function main(): Promise<void> {
  const dir = arg('dir', fs.mkdtempSync(path.join(os.tmpdir(), 'am-soak-')));
  const kills = Number(arg('kills', '200'));
  const diskErrors = Number(arg('disk-errors', '30'));
  const encrypted = process.argv.includes('--encrypted');
  console.log(`soak: ${kills} kills, ${diskErrors} disk errors, ${encrypted ? 'encrypted' : 'plain'} store in ${dir}`);
  const recoveryKey = encrypted ? formatRecoveryKey(newKey()) : undefined;
  const f = await runSoak({ dir, kills, diskErrors, log: (l) => console.log(l), ...(recoveryKey ? { recoveryKey } : {}) });
  console.log(JSON.stringify(f, null, 2));
  console.log(
    `\nkills ${f.kills} (${Object.entries(f.killsByPoint)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}), acknowledged writes ${f.acknowledgedWrites}, ` +
      `lost writes ${f.lostWrites}, failed writes ${f.failedWrites} (resurrected ${f.resurrectedFailedWrites}), integrity failures ${f.integrityFailures}, ` +
      `injected disk errors ${f.diskErrorsInjected}, child failures ${f.childFailures}, ${f.seconds} s`,
  );
  if (f.lostWrites || f.resurrectedFailedWrites || f.integrityFailures || f.childFailures) process.exitCode = 1;
}

void main();
