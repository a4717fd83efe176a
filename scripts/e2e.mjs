// End-to-end tests in a real VS Code: `npm run test:e2e [-- options]`
//
// What it does: builds the extension (esbuild.mjs), bundles the extension-host tests, starts
// code-server (scripts/vscode-env.mjs installs it on first use), opens Debian's Chromium
// through playwright-core and runs two kinds of tests against the same server:
//   (a) extension-host tests — test/e2e/suite/*.test.ts, run inside the real extension host
//       through the `extensionTestsPath` payload (the test-electron pattern). They use the
//       real `vscode` API. The bundle's `run()` is test/e2e/index.ts; the runner is
//       test/e2e/runner.ts (mocha-style suite/test/suiteSetup/setup/… with timeouts).
//       That server runs with the smoke-test driver (required for the payload on 1.139).
//   (b) UI tests — test/e2e/ui/*.ui.mjs, Playwright driving the workbench page of a second
//       code-server without the smoke-test driver (which would hide notification toasts),
//       with the extension installed the way `npm start` does it (scripts/vscode-env.mjs
//       linkExtension). Screenshots go to test-artifacts/e2e/. That instance also gets the
//       test/e2e/fixtures/default-chat extension (a default chat participant, which VS Code
//       needs before it shows its chat view; Copilot is that participant for real users) and
//       test/e2e/fixtures/theme-switch (switches the colour theme for screenshots).
// The last line printed is `N passed, N failed` over both kinds; the exit code is non-zero on
// any failure (or when no test ran).
//
// HOW TO ADD TESTS
//   Extension-host: add test/e2e/suite/<name>.test.ts:
//       import { suite, test } from '../runner';
//       suite('My area', () => { test('does X', async () => { ... }); });
//     Every *.test.ts there is picked up (bundled into .vscode-test/e2e-out/index.js).
//     Environment variables for the extension host go in `hostEnv` below.
//   UI: add test/e2e/ui/<name>.ui.mjs exporting `tests`, an object of async functions:
//       export const tests = { async 'my test'({ page, screenshot, url }) { ... } };
//     Each test gets a fresh page with the workbench loaded (extension installed) and the
//     sample workspace open; helpers are in test/e2e/ui/workbench.mjs (runCommand,
//     waitForNotification, openViewContainer, findFrame); a test that needs more than 90 s gets it
//     from the module's `export const timeouts = { 'my test': 150_000 }`. `screenshot(name)` saves
//     test-artifacts/e2e/<file>--<name>--{light,hc,dark}.png: the same moment in Default Light
//     Modern, Default High Contrast and Default Dark Modern (switched without a reload by the
//     theme-switch fixture extension); a failing test also saves FAILED--….png (in its current theme).
//
// Options: --host-only | --ui-only, --grep TEXT (filters test names of both kinds; for UI tests
// `a|b` keeps names containing a or b),
//          --no-build (reuse dist/), --keep-server (leave code-server running, print its URL),
//          --vsix FILE (UI tests run against that packaged VSIX, installed with code-server's
//          --install-extension, instead of the linked working tree: checks .vscodeignore).
//          After `--`: npm run test:e2e -- --ui-only --vsix agent-memory-0.1.0.vsix
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import util from 'node:util';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import {
  ROOT,
  CACHE,
  CHROMIUM,
  CHROMIUM_ARGS,
  createSampleWorkspace,
  developmentUrl,
  ensureVsCodeEnv,
  installVsix,
  linkExtension,
  registerExtension,
  startCodeServer,
  workbenchUrl,
} from './vscode-env.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runHost = !flag('--ui-only');
const runUi = !flag('--host-only');
const grep = option('--grep');
const vsix = option('--vsix');

const ARTIFACTS = join(ROOT, 'test-artifacts', 'e2e');
const OUT = join(CACHE, 'e2e-out');
const WORKSPACE = join(CACHE, 'e2e-workspace');
const HOST_TIMEOUT_MS = 180_000;
const HOST_START_MARKER = '[e2e-host] start'; // printed by test/e2e/index.ts
const HOST_NOISE = [/^Ignoring fetching additional builtin extensions/, /^\s+at .*\/static\/out\//];
const UI_TEST_TIMEOUT_MS = 90_000;
// The UI tests' theme requests to the theme-switch fixture (test/e2e/fixtures/theme-switch).
const THEME_REQUEST_FILE = join(CACHE, 'instances', 'e2e-ui-theme-request');

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const say = (msg) => console.log(`[e2e] ${msg}`);
const slug = (s) =>
  s
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 80);
const browserLog = join(ARTIFACTS, 'browser-console.log');

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function build() {
  if (flag('--no-build') && existsSync(join(ROOT, 'dist', 'extension.js'))) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** Bundles test/e2e/index.ts + every suite/*.test.ts into one CommonJS file for the host. */
async function bundleHostTests() {
  const suiteDir = join(ROOT, 'test', 'e2e', 'suite');
  const files = readdirSync(suiteDir)
    .filter((f) => /\.test\.(ts|js)$/.test(f))
    .sort();
  if (files.length === 0) throw new Error(`no test files in ${relative(ROOT, suiteDir)}`);
  rmSync(OUT, { recursive: true, force: true });
  const contents = files.map((f) => `import './suite/${f}';`).join('\n') + "\nexport { run } from './index';\n";
  await esbuild.build({
    stdin: { contents, resolveDir: join(ROOT, 'test', 'e2e'), sourcefile: 'e2e-entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'inline',
    outfile: join(OUT, 'index.js'),
    logLevel: 'warning',
  });
  return files;
}

async function runHostTests(context, server) {
  say('extension-host tests');
  const page = await context.newPage();
  const lines = [];
  const hostLog = join(ARTIFACTS, 'host-console.log');
  let echo = false; // the workbench logs a lot; show our runner's lines, keep all in hostLog
  let resolveExit;
  const exited = new Promise((r) => {
    resolveExit = r;
  });
  await page.exposeFunction('codeAutomationLog', (type, logArgs) => {
    const line = util.format(...(Array.isArray(logArgs) ? logArgs : [logArgs]));
    lines.push(line);
    appendFileSync(hostLog, line + '\n');
    if (line.startsWith(HOST_START_MARKER)) echo = true;
    if (echo && !HOST_NOISE.some((re) => re.test(line))) console.log(line);
    if (/^\d+ passed, \d+ failed/.test(line.trim())) echo = false;
  });
  await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
  const url = developmentUrl(server.url, WORKSPACE, { extensionTestsPath: join(OUT, 'index.js') });
  await page.goto(url);
  let code;
  try {
    code = await withTimeout(exited, HOST_TIMEOUT_MS, 'extension-host tests');
  } catch (e) {
    console.log(String(e.message));
    code = -1;
  }
  await page.screenshot({ path: join(ARTIFACTS, 'host-tests.png') }).catch(() => {});
  await page.close();
  const summary = [...lines]
    .reverse()
    .map((l) => /^(\d+) passed, (\d+) failed/.exec(l.trim()))
    .find(Boolean);
  if (code !== 0 && !summary) {
    // the host failed before or outside the tests: show why
    console.log(`[e2e] no test summary; last lines of ${relative(ROOT, hostLog)}:`);
    console.log(
      lines
        .slice(-40)
        .map((l) => `  | ${l}`)
        .join('\n'),
    );
  }
  let passed = summary ? Number(summary[1]) : 0;
  let failed = summary ? Number(summary[2]) : 0;
  if (code !== 0 && failed === 0) failed = 1; // the host failed before or outside the tests
  if (code === 0 && passed === 0) failed += 1; // "no test ran" is a failure
  say(`extension-host tests: exit code ${code}, ${passed} passed, ${failed} failed (${elapsed()})`);
  return { passed, failed };
}

async function loadUiTests() {
  const dir = join(ROOT, 'test', 'e2e', 'ui');
  const all = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.ui.mjs'))
    .sort()) {
    const mod = await import(pathToFileURL(join(dir, f)).href);
    for (const [name, fn] of Object.entries(mod.tests ?? {})) {
      if (grep && !grep.split('|').some((g) => `${f} › ${name}`.includes(g))) continue;
      // A test that needs longer (two windows, a reload) says so in the module's `timeouts` (ms by name).
      all.push({ file: f.replace(/\.ui\.mjs$/, ''), name, fn, timeoutMs: mod.timeouts?.[name] ?? UI_TEST_TIMEOUT_MS });
    }
  }
  return all;
}

async function runUiTests(context, server) {
  const tests = await loadUiTests();
  say(`UI tests (${tests.length})`);
  let passed = 0;
  let failed = 0;
  const url = workbenchUrl(server.url, WORKSPACE);
  const { waitForWorkbench, screenshotInThemes, runCommand, resetLayout, withTheme } = await import(
    pathToFileURL(join(ROOT, 'test', 'e2e', 'ui', 'workbench.mjs')).href
  );
  for (const t of tests) {
    const started = Date.now();
    const page = await context.newPage();
    page.on('console', (m) => appendFileSync(browserLog, `[${t.name}] ${m.type()}: ${m.text()}\n`));
    page.on('pageerror', (e) => appendFileSync(browserLog, `[${t.name}] pageerror: ${e.message}\n`));
    // Every screenshot in the light, high-contrast and dark themes (workbench.mjs SCREENSHOT_THEMES), or the themes given;
    // of the test's window, or of another window it opened (the newest window applies theme requests: theme-switch fixture).
    const screenshot = (name, themes, onPage = page) =>
      screenshotInThemes(onPage, {
        themeRequestFile: THEME_REQUEST_FILE,
        pathBase: join(ARTIFACTS, `${t.file}--${slug(name)}`),
        ...(themes ? { themes } : {}),
      });
    try {
      await page.goto(url);
      await waitForWorkbench(page);
      // Each test starts with no editor open: the workbench would otherwise restore the previous
      // tests' memory documents and panels (the panel-restore tests reload inside the test).
      await runCommand(page, 'View: Close All Editors').catch(() => {});
      await resetLayout(page);
      const inTheme = (suffix, fn) => withTheme(page, { themeRequestFile: THEME_REQUEST_FILE, suffix }, fn);
      await withTimeout(t.fn({ page, screenshot, inTheme, url, server, workspace: WORKSPACE }), t.timeoutMs, t.name);
      passed++;
      console.log(`  ✓ ${t.file} › ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      console.log(
        `  ✗ ${t.file} › ${t.name}\n      ${String(e?.stack ?? e)
          .split('\n')
          .join('\n      ')}`,
      );
      await page.screenshot({ path: join(ARTIFACTS, `FAILED--${t.file}--${slug(t.name)}.png`) }).catch(() => {});
      console.log(await failureReport(page, server));
    } finally {
      await page.close().catch(() => {});
    }
  }
  if (tests.length === 0) {
    failed++;
    console.log('  ✗ no UI test found');
  }
  say(`UI tests: ${passed} passed, ${failed} failed (${elapsed()})`);
  return { passed, failed };
}

/**
 * What the window showed when a UI test failed, printed under it (CI keeps only the output):
 * toasts, an open quick input, the editor tabs, and the last lines of the window's Agent Memory log.
 */
async function failureReport(page, server) {
  const { shownInWindow } = await import(pathToFileURL(join(ROOT, 'test', 'e2e', 'ui', 'workbench.mjs')).href);
  const shown = await shownInWindow(page).catch((e) => ({ error: String(e) }));
  const lines = [`      window: ${JSON.stringify(shown)}`];
  const log = newestFile(join(server.userDataDir, 'logs'), (name) => name.endsWith('Agent Memory.log'));
  if (log) {
    const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30);
    lines.push(`      last lines of ${relative(ROOT, log)}:`, ...tail.map((l) => `        ${l}`));
  }
  return lines.join('\n');
}

/** The most recently written file under `dir` whose name passes `want`. */
function newestFile(dir, want) {
  let best;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (want(e.name)) {
        const mtime = statSync(f).mtimeMs;
        if (!best || mtime > best.mtime) best = { f, mtime };
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return best?.f;
}

const DEFAULT_CHAT_FIXTURE_ID = 'agent-memory-e2e.default-chat';

/** Copies the fixture extension test/e2e/fixtures/<name> into the UI instance's extensions folder. */
function installFixture(extensionsDir, name) {
  const pkg = { publisher: 'agent-memory-e2e', name, version: '0.0.1' };
  const target = join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  cpSync(join(ROOT, 'test', 'e2e', 'fixtures', name), target, { recursive: true });
  registerExtension(extensionsDir, pkg, target);
}

async function main() {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(browserLog, '');
  rmSync(THEME_REQUEST_FILE, { force: true });
  build();
  const suites = runHost ? await bundleHostTests() : [];
  if (runHost) say(`bundled ${suites.length} extension-host test file(s) into ${relative(ROOT, OUT)}/index.js`);
  await ensureVsCodeEnv();
  createSampleWorkspace(WORKSPACE, { fresh: true });

  // Environment of code-server, hence of the extension host.
  // AGENT_MEMORY_KEYCHAIN=off: no run writes encryption keys into the developer's own keychain (docs/encryption.md).
  const hostEnv = { AGENT_MEMORY_E2E: '1', AGENT_MEMORY_KEYCHAIN: 'off', ...(grep ? { AGENT_MEMORY_E2E_GREP: grep } : {}) };
  // Each instance gets its own empty store home: never the user's ~/.agent-memory, never the last run's.
  const storeHome = (name) => {
    const dir = join(ARTIFACTS, `store-home-${name}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  };
  const servers = [];
  let context;
  const cleanup = async () => {
    await context?.close().catch(() => {});
    if (!flag('--keep-server')) await Promise.all(servers.map((s) => s.stop()));
  };
  process.once('SIGINT', () => {
    cleanup().finally(() => process.exit(130));
  });
  process.once('SIGTERM', () => {
    cleanup().finally(() => process.exit(143));
  });

  const totals = { passed: 0, failed: 0 };
  try {
    const profile = join(CACHE, 'instances', 'e2e-chromium-profile');
    rmSync(profile, { recursive: true, force: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    for (const p of context.pages()) await p.close(); // each test starts from a fresh page
    const parts = [];
    if (runHost) {
      // The extensionTestsPath payload needs the smoke-test driver (VS Code 1.139).
      const server = await startCodeServer({
        name: 'e2e-host',
        fresh: true,
        workspace: WORKSPACE,
        smokeTestDriver: true,
        env: { ...hostEnv, AGENT_MEMORY_HOME: storeHome('e2e-host') },
      });
      servers.push(server);
      parts.push(await runHostTests(context, server));
      if (!flag('--keep-server')) await server.stop();
    }
    if (runUi) {
      // No smoke-test driver here: it hides notification toasts. The extension is installed
      // (linked) into this instance's extensions folder, as a user would have it.
      // The default-chat fixture stands in for Copilot (VS Code enables its chat view only when a
      // default chat agent exists); it needs a proposed API, enabled for it alone.
      const server = await startCodeServer({
        name: 'e2e-ui',
        fresh: true,
        workspace: WORKSPACE,
        env: {
          ...hostEnv,
          AGENT_MEMORY_HOME: storeHome('e2e-ui'),
          AGENT_MEMORY_E2E_THEME_FILE: THEME_REQUEST_FILE,
          // "Set Up Other Agents…" writes the agents' user-level files: here, never the developer's own.
          CODEX_HOME: storeHome('agent-config-codex'),
          CLAUDE_CONFIG_DIR: storeHome('agent-config-claude'),
          CONTINUE_GLOBAL_DIR: storeHome('agent-config-continue'),
        },
        // A closed window's extension host ends 30 s after its window went (code-server keeps it
        // 3 hours by default): fewer hosts contend for the CPU and for the theme fixture's requests.
        extraArgs: ['--enable-proposed-api', DEFAULT_CHAT_FIXTURE_ID, '--reconnection-grace-time', '30'],
        beforeStart: async (dirs) => {
          await (vsix ? installVsix(vsix, dirs) : linkExtension(dirs.extensionsDir));
          installFixture(dirs.extensionsDir, 'default-chat');
          installFixture(dirs.extensionsDir, 'theme-switch');
        },
      });
      servers.push(server);
      parts.push(await runUiTests(context, server));
    }
    for (const p of parts) {
      totals.passed += p.passed;
      totals.failed += p.failed;
    }
  } catch (e) {
    console.log(`[e2e] harness error: ${e?.stack ?? e}`);
    totals.failed++;
  } finally {
    await cleanup();
  }
  if (flag('--keep-server')) {
    for (const s of servers) {
      s.keepAlive();
      say(`code-server left running: ${s.url} (pid ${s.pid}; stop: kill -- -${s.pid})`);
    }
  }
  say(
    `screenshots: ${relative(ROOT, ARTIFACTS)}/ (${readdirSync(ARTIFACTS).filter((f) => f.endsWith('.png')).length} files); ` +
      `code-server logs: ${servers.map((s) => relative(ROOT, s.logFile)).join(', ')}; total ${elapsed()}`,
  );
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e?.stack ?? e);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
