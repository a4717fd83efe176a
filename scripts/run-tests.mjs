// Runs every test file under test/ (except e2e) with node's test runner and tsx.
// Node 20's `--test` has no glob support, so the files are listed here.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name === 'e2e' || name === 'fixtures') continue;
      collect(p, out);
    } else if (name.endsWith('.test.ts')) {
      out.push(relative(root, p));
    }
  }
  return out;
}

let files = collect(join(root, 'test'), []).sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_OPTIONS: '' },
});
process.exit(r.status ?? 1);
