// Installs the npm dependencies when they are missing or older than package-lock.json,
// so `npm test`, `npm start` and `npm run bench` work on a fresh clone with one command.
import { existsSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const marker = root + 'node_modules/.package-lock.json';
const lock = root + 'package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  console.error('[ensure-deps] installing npm dependencies (npm ci)…');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
