// `npm start`: the extension in a real VS Code, in your browser, with no Ollama needed.
//
// Builds the extension and keeps rebuilding it on change (esbuild --watch), prepares a small
// sample workspace (.vscode-test/sample-workspace: a git repo with an origin remote and a few
// files), starts code-server (installed on first use into .vscode-test/ by
// scripts/vscode-env.mjs) and prints the URL to open. Ctrl+C stops everything.
//
// How the extension is loaded: it is *installed* into this code-server's extensions folder as
// agent-memory.agent-memory-<version>/ with a copy of package.json, dist/ and media/ (and a link
// to node_modules/), so any window of this server has it and VS Code names it "Agent Memory" in
// notifications (it identifies an extension by where its code lives: a linked dist/ would show
// "Null Extension Description"). After each rebuild the watcher copies dist/ again (edit → the
// watcher rebuilds and copies → "Developer: Reload Window"). Why not the development-mode URL
// payload (extensionDevelopmentPath) that the e2e host tests use? On VS Code 1.139 code-server
// honours it only with `--vscode-option enable-smoke-test-driver`, and that option turns
// notification toasts off: a person would never see the extension's messages. A change to
// package.json (new commands, views, settings) needs a restart of `npm start`.
//
// Chat: this profile keeps VS Code's chat enabled. Without a language model (no Copilot here)
// VS Code does not send chat requests to @memory; "Agent Memory: Recall…" gives the same answer.
//
// Options: --port N (default 7437, or AGENT_MEMORY_PORT), --no-watch, --yes (install missing
//          Debian packages without asking), --fresh (new sample workspace and VS Code profile),
//          --workspace DIR (open your folder).
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { watch as watchFiles } from 'node:fs';
import {
  ROOT,
  CACHE,
  DEFAULT_PORT,
  createSampleWorkspace,
  ensureVsCodeEnv,
  linkExtension,
  portIsFree,
  startCodeServer,
  syncBuild,
  workbenchUrl,
} from './vscode-env.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
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

  const port = Number(option('--port') ?? process.env.AGENT_MEMORY_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw Object.assign(new Error(`not a port: ${option('--port') ?? process.env.AGENT_MEMORY_PORT}`), { expected: true });
  }
  if (!(await portIsFree(port))) {
    throw Object.assign(
      new Error(
        `port ${port} is in use (another \`npm start\`?). Stop it, or pick another port: ` +
          'npm start -- --port N, or AGENT_MEMORY_PORT=N npm start',
      ),
      { expected: true },
    );
  }
  // The extension folder must be in place before code-server scans its extensions folder.
  let installed;
  const server = await startCodeServer({
    name: 'start',
    fresh: flag('--fresh'),
    workspace,
    port,
    beforeStart: ({ extensionsDir }) => {
      installed = linkExtension(extensionsDir);
      say(`extension installed at ${installed}`);
    },
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
    watcher.on('exit', (code) => {
      if (!stopping) say(`esbuild watcher exited (${code}); rebuilds stop, VS Code keeps running`);
    });
    // Each rebuild writes several files: copy them into the installed extension once it is quiet.
    let timer;
    watchFiles(join(ROOT, 'dist'), { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        try {
          syncBuild(installed);
          say('rebuilt: run "Developer: Reload Window" (F1) to load it');
        } catch (e) {
          say(`copying the build failed: ${e.message}`);
        }
      }, 500);
    }).unref();
  }

  // If code-server dies, say so and exit.
  const poll = setInterval(async () => {
    try {
      await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(3000) });
    } catch {
      if (!stopping) {
        clearInterval(poll);
        say(`code-server is not answering any more; see ${server.logFile}`);
        await shutdown(1);
      }
    }
  }, 5000);

  const url = workbenchUrl(server.url, workspace);
  console.log('');
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s — open this URL in a browser:`);
  console.log(`\n  ${url}\n`);
  say(
    watch ? 'edits rebuild automatically; then run "Developer: Reload Window" (F1) to load them.' : 'restart `npm start` to load changes.',
  );
  say('try F1 → "Agent Memory: Add Memory…", the Agent Memory sidebar, F1 → "Agent Memory: Recall…",');
  say('F1 → "Agent Memory: Open Search Panel", or "@memory" in chat once a language model (e.g. Copilot) is installed.');
  say(`the port stays ${port} across runs (--port N or AGENT_MEMORY_PORT=N to change it). Ctrl+C stops code-server.`);
  say(`code-server log: ${server.logFile}`);
}

main().catch((e) => {
  // A problem the person can fix is said in one line; anything else with its stack.
  console.error(`[start] ${e?.expected ? e.message : (e?.stack ?? e)}`);
  process.exit(1);
});
