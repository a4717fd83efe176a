// A tiny mocha-style test runner for the extension-host tests (test/e2e/suite/*.test.ts).
// It runs inside the real VS Code extension host (see scripts/e2e.mjs), so it has no
// dependencies: `suite`, `test`, `suiteSetup`, `suiteTeardown`, `setup`, `teardown`, with
// async functions and per-test timeouts. Output: one line per test and, last, exactly
// `N passed, N failed` (the line CI recognizes).

export type TestFn = () => unknown; // may return a Promise

interface TestCase {
  name: string;
  fn: TestFn;
  timeoutMs: number;
  only: boolean;
  skip: boolean;
}
interface Suite {
  name: string;
  tests: TestCase[];
  suiteSetup: TestFn[];
  suiteTeardown: TestFn[];
  setup: TestFn[];
  teardown: TestFn[];
}

const DEFAULT_TIMEOUT_MS = 20_000;
const suites: Suite[] = [];
let current: Suite | undefined;

function currentSuite(what: string): Suite {
  if (!current) throw new Error(`${what}() must be called inside suite()`);
  return current;
}

/** Declares a suite; its body registers tests and hooks synchronously. */
export function suite(name: string, body: () => void): void {
  const s: Suite = { name, tests: [], suiteSetup: [], suiteTeardown: [], setup: [], teardown: [] };
  const outer = current;
  current = s;
  try {
    body();
  } finally {
    current = outer;
  }
  suites.push(s);
}

type TestOptions = { timeoutMs?: number };
function addTest(name: string, fn: TestFn, opts: TestOptions, flags: { only?: boolean; skip?: boolean }): void {
  currentSuite('test').tests.push({
    name,
    fn,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    only: !!flags.only,
    skip: !!flags.skip,
  });
}

export const test = Object.assign((name: string, fn: TestFn, opts: TestOptions = {}) => addTest(name, fn, opts, {}), {
  only: (name: string, fn: TestFn, opts: TestOptions = {}) => addTest(name, fn, opts, { only: true }),
  skip: (name: string, fn: TestFn, opts: TestOptions = {}) => addTest(name, fn, opts, { skip: true }),
});
export const suiteSetup = (fn: TestFn) => {
  currentSuite('suiteSetup').suiteSetup.push(fn);
};
export const suiteTeardown = (fn: TestFn) => {
  currentSuite('suiteTeardown').suiteTeardown.push(fn);
};
export const setup = (fn: TestFn) => {
  currentSuite('setup').setup.push(fn);
};
export const teardown = (fn: TestFn) => {
  currentSuite('teardown').teardown.push(fn);
};

async function withTimeout(fn: TestFn, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(fn),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

export interface RunResult {
  passed: number;
  failed: number;
  skipped: number;
}

/** Runs every registered suite; `grep` keeps tests whose "suite › test" name contains it. */
export async function runAll(log: (line: string) => void, grep?: string): Promise<RunResult> {
  const result: RunResult = { passed: 0, failed: 0, skipped: 0 };
  const anyOnly = suites.some((s) => s.tests.some((t) => t.only));
  for (const s of suites) {
    const selected = s.tests.filter((t) => (!anyOnly || t.only) && (!grep || `${s.name} › ${t.name}`.includes(grep)));
    if (selected.length === 0) continue;
    log(`${s.name}`);
    let setupError: unknown;
    for (const h of s.suiteSetup) {
      try {
        await withTimeout(h, DEFAULT_TIMEOUT_MS, 'suiteSetup');
      } catch (e) {
        setupError = e;
        break;
      }
    }
    for (const t of selected) {
      if (t.skip) {
        result.skipped++;
        log(`  - ${t.name} (skipped)`);
        continue;
      }
      const t0 = Date.now();
      let error: unknown = setupError;
      if (!error) {
        try {
          for (const h of s.setup) await withTimeout(h, t.timeoutMs, 'setup');
          await withTimeout(t.fn, t.timeoutMs, t.name);
        } catch (e) {
          error = e;
        }
        for (const h of s.teardown) {
          try {
            await withTimeout(h, t.timeoutMs, 'teardown');
          } catch (e) {
            error ??= e;
          }
        }
      }
      if (error) {
        result.failed++;
        log(`  ✗ ${t.name}`);
        log(
          describe(error)
            .split('\n')
            .map((l) => `      ${l}`)
            .join('\n'),
        );
      } else {
        result.passed++;
        log(`  ✓ ${t.name} (${Date.now() - t0} ms)`);
      }
    }
    for (const h of s.suiteTeardown) {
      try {
        await withTimeout(h, DEFAULT_TIMEOUT_MS, 'suiteTeardown');
      } catch (e) {
        result.failed++;
        log(`  ✗ suiteTeardown of ${s.name}\n${describe(e)}`);
      }
    }
  }
  return result;
}
