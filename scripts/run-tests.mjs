// Runs the test files of one tier with node's test runner and tsx (CONTRIBUTING.md "Tests").
//
//   node scripts/run-tests.mjs [--tier fast|durability|process|all] [path substrings…]
//
// A file's tier is its `// @tier durability` or `// @tier process` line (in its first lines);
// without one it is in the fast tier:
//   fast        every unit and in-process integration test (`npm test`)
//   durability  kill -9, soak, takeover, real disk faults (`npm run test:durability`)
//   process     the CLI, the MCP server and other real processes, packaging, benchmarks as
//               tests (`npm run test:process`)
// test/tiers.test.ts checks that a file which kills or starts our own processes is not in the
// fast tier. e2e tests (test/e2e) have their own runner (`npm run test:e2e`).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
export const TIERS = ['fast', 'durability', 'process'];
const TIER_LINE = /^\/\/ @tier (\w+)\s*$/m;

/** The tier a test file declares (its first 600 characters), `fast` when it declares none. */
export function tierOf(source) {
  const m = TIER_LINE.exec(source.slice(0, 600));
  return m ? m[1] : 'fast';
}

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

/** Every test file of the tier (`all`: every tier), sorted. */
export function testFiles(tier) {
  const files = collect(join(root, 'test'), []).sort();
  for (const f of files) {
    const t = tierOf(readFileSync(join(root, f), 'utf8'));
    if (!TIERS.includes(t)) throw new Error(`${f}: unknown tier "${t}" (one of ${TIERS.join(', ')})`);
  }
  if (tier !== 'all' && !TIERS.includes(tier)) throw new Error(`unknown tier "${tier}" (one of ${TIERS.join(', ')}, all)`);
  return tier === 'all' ? files : files.filter((f) => tierOf(readFileSync(join(root, f), 'utf8')) === tier);
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--tier');
  const tier = at >= 0 ? args[at + 1] : 'fast';
  const filter = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  if (![...TIERS, 'all'].includes(tier)) {
    console.error(`run-tests: unknown tier "${tier}" (one of ${TIERS.join(', ')}, all)`);
    process.exit(2);
  }
  // With path substrings, every tier is searched: `run-tests crash` finds the durability test.
  let files = testFiles(filter.length ? 'all' : tier);
  if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
  if (files.length === 0) {
    console.error('run-tests: no test files found');
    process.exit(1);
  }
  console.log(`run-tests: ${filter.length ? 'matching' : `the ${tier} tier`}: ${files.length} file${files.length === 1 ? '' : 's'}`);
  const summary = join(root, 'scripts', 'test-summary-reporter.mjs');
  // The CLIs the tests start keep their V8 code cache under XDG_CACHE_HOME (src/cli/codeCache.ts):
  // a folder of this run, removed after it, so no test writes into the developer's ~/.cache.
  const cacheHome = mkdtempSync(join(tmpdir(), 'am-test-cache-'));
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${summary}`,
      '--test-reporter-destination=stdout',
      ...files,
    ],
    {
      cwd: root,
      stdio: 'inherit',
      // AGENT_MEMORY_KEYCHAIN=off: no test writes keys into the developer's own keychain (docs/encryption.md).
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        TEST_TIER: filter.length ? 'matching files' : `${tier} tier`,
        AGENT_MEMORY_KEYCHAIN: process.env.AGENT_MEMORY_KEYCHAIN ?? 'off',
        XDG_CACHE_HOME: cacheHome,
      },
    },
  );
  rmSync(cacheHome, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) main();
