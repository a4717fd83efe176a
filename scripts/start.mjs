// `npm start`: the extension in a real VS Code, in your browser, with no Ollama needed.
//
// Builds the extension and keeps rebuilding it on change (esbuild --watch), prepares a small
// sample workspace (.vscode-test/sample-workspace: a git repo with an origin remote and a few
// files), starts code-server (installed on first use into .vscode-test/ by
// scripts/vscode-env.mjs) and prints the URL to open. Ctrl+C stops everything.
//
// How the extension is loaded: it is *installed* into this code-server's extensions folder as
// agent-memory.agent-memory-<version>/, whose dist/, media/ and node_modules/ are symbolic
// links to this repository (package.json is copied at start). So any window of this server
// has it, it runs the code you just built (edit → the watcher rebuilds → "Developer: Reload
// Window"), and nothing is copied per change. Why not the development-mode URL payload
// (extensionDevelopmentPath) that the e2e host tests use? On VS Code 1.139 code-server honours
// it only with `--vscode-option enable-smoke-test-driver`, and that option turns notification
// toasts off: a person would never see the extension's messages. A change to package.json
// (new commands, views, settings) needs a restart of `npm start`.
//
// Options: --port N (default: a free port, or AGENT_MEMORY_PORT), --no-watch,
//          --fresh (new sample workspace and VS Code profile), --workspace DIR (open your folder).
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  ROOT, CACHE, createSampleWorkspace, ensureVsCodeEnv, linkExtension, startCodeServer, workbenchUrl,
} from './vscode-env.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const say = (msg) => console.log(`[start] ${msg}`);
const t0 = Date.now();

function build() {
  const r = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed (see the errors above)');
}

async function main() {
  const watch = !flag('--no-watch');
  build();
  await ensureVsCodeEnv();
  const workspace = option('--workspace')
    ? resolve(option('--workspace'))
    : createSampleWorkspace(join(CACHE, 'sample-workspace'), { fresh: flag('--fresh') });

  // The extension folder must be in place before code-server scans its extensions folder.
  const server = await startCodeServer({
    name: 'start', fresh: flag('--fresh'), workspace, port: option('--port') ?? process.env.AGENT_MEMORY_PORT,
    beforeStart: ({ extensionsDir }) => say(`extension installed at ${linkExtension(extensionsDir)}`),
  });
  let watcher;
  let stopping = false;
  const shutdown = async (code) => {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    if (watcher && watcher.exitCode === null) watcher.kill('SIGTERM');
    await server.stop();
    say('code-server stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGHUP', () => shutdown(0));

  if (watch) {
    watcher = spawn(process.execPath, [join(ROOT, 'esbuild.mjs'), '--watch'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    watcher.on('exit', (code) => { if (!stopping) say(`esbuild watcher exited (${code}); rebuilds stop, VS Code keeps running`); });
  }

  // If code-server dies, say so and exit.
  const poll = setInterval(async () => {
    try { await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(3000) }); } catch {
      if (!stopping) { clearInterval(poll); say(`code-server is not answering any more; see ${server.logFile}`); await shutdown(1); }
    }
  }, 5000);

  const url = workbenchUrl(server.url, workspace);
  console.log('');
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s — open this URL in a browser:`);
  console.log(`\n  ${url}\n`);
  say(watch
    ? 'edits rebuild automatically; then run "Developer: Reload Window" (F1) to load them.'
    : 'run `npm run build`, then "Developer: Reload Window" (F1), to load changes.');
  say('try F1 → "Agent Memory: Add Memory…", the Agent Memory sidebar, F1 → "Agent Memory: Open Search Panel",');
  say('"@memory" in chat (with a chat provider such as Copilot), or F1 → "Agent Memory: Show Diagnostics". Ctrl+C stops code-server.');
  say(`code-server log: ${server.logFile}`);
}

main().catch((e) => {
  console.error(`[start] ${e?.stack ?? e}`);
  process.exit(1);
});
