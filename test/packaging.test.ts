// @tier process
// The VSIX as a person installs it: `npm run package` works on a clean clone (it failed on the
// README's relative links while package.json named no repository), ships only what runs
// (the bundles, the assets and the run-time dependencies esbuild leaves external), and what it
// ships works on its own: the packaged CLI stores and recalls with the built-in embedding model
// from the VSIX's own node_modules, and the packaged MCP server answers the SDK's client.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tmpDir } from './helpers/tmp';
import { until } from './helpers/until';

const root = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  repository?: { url?: string };
  bugs?: { url?: string };
  homepage?: string;
  keywords?: string[];
  capabilities?: Record<string, unknown>;
};

interface RuntimeDeps {
  runtimeDependencies(this: void, root: string): string[];
}
const runtimeDeps = (): Promise<RuntimeDeps> => import(path.join(root, 'scripts/vsix-runtime-deps.mjs')) as Promise<RuntimeDeps>;

/** The node_modules packages .vscodeignore lets back into the VSIX (`!node_modules/<pkg>/…`). */
function allowedPackages(): string[] {
  const lines = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
  const names = lines.map((l) => /^!node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l.trim())?.[1]).filter((n): n is string => !!n);
  return [...new Set(names.map((n) => `node_modules/${n}`))].sort();
}

/** Every file under dir, relative to it. */
function walk(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p, base) : [path.relative(base, p)];
  });
}

test('package.json names the repository, issues, homepage and keywords, and says what works in a virtual workspace', () => {
  assert.match(pkg.repository?.url ?? '', /^https:\/\/github\.com\/[^/]+\/[^/]+\.git$/);
  assert.match(pkg.bugs?.url ?? '', /\/issues$/);
  assert.ok(pkg.homepage?.startsWith('https://'), 'homepage');
  assert.ok((pkg.keywords ?? []).length >= 5 && (pkg.keywords ?? []).length <= 30, 'keywords (the Marketplace takes at most 30)');
  const virtual = pkg.capabilities?.virtualWorkspaces as { supported?: unknown; description?: string } | undefined;
  assert.equal(virtual?.supported, 'limited');
  assert.ok((virtual?.description ?? '').length > 40, 'a limited capability says what is limited');
});

test('.vscodeignore lets back exactly the external run-time dependencies and theirs', async () => {
  const { runtimeDependencies } = await runtimeDeps();
  assert.deepEqual(allowedPackages(), runtimeDependencies(root));
});

test('npm run package builds a VSIX of what runs, and its CLI and MCP server work from it alone', { timeout: 600_000 }, async () => {
  const out = tmpDir('am-vsix-');
  const vsix = path.join(out, 'agent-memory.vsix');
  const built = spawnSync('npm', ['run', 'package', '--', '--out', vsix], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  assert.equal(built.status, 0, `npm run package failed:\n${built.stdout}\n${built.stderr}`);

  const unpacked = path.join(out, 'unpacked');
  const unzip = spawnSync('python3', ['-m', 'zipfile', '-e', vsix, unpacked], { encoding: 'utf8' });
  assert.equal(unzip.status, 0, unzip.stderr);
  const ext = path.join(unpacked, 'extension');
  const files = walk(ext);

  // Only what runs: no sources, maps, tests or bundled-again dependencies.
  assert.ok(files.length <= 150, `${files.length} files in the VSIX`);
  assert.deepEqual(
    files.filter((f) => /(^|\/)(src|test|docs)\/|\.map$|\.ts$|^ARCHITECTURE\.md$/.test(f) && !f.startsWith('node_modules/')),
    [],
  );
  const shippedPackages = [
    ...new Set(files.filter((f) => f.startsWith('node_modules/')).map((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)![0])),
  ].sort();
  const { runtimeDependencies } = await runtimeDeps();
  assert.deepEqual(shippedPackages, runtimeDependencies(root));
  for (const f of [
    'package.json',
    'readme.md',
    'LICENSE.txt',
    'dist/extension.js',
    'dist/engine.js',
    'dist/cli.js',
    'dist/cliMain.js',
    'dist/cachedWorker.js',
    'dist/useLiteWorker.js',
    'dist/sql-wasm.wasm',
  ]) {
    assert.ok(files.includes(f), `${f} is in the VSIX`);
  }
  // vsce names it readme.md and turned its relative links into links to the repository.
  const readme = fs.readFileSync(path.join(ext, 'readme.md'), 'utf8');
  assert.doesNotMatch(readme, /\]\((?!https?:|#)[^)]+\)/, 'no relative link left in the packaged README');

  // The packaged CLI, with the built-in model loaded from the VSIX's node_modules.
  const home = tmpDir('am-vsix-home-');
  const workspace = tmpDir('am-vsix-ws-');
  fs.mkdirSync(path.join(workspace, '.agent-memory'));
  fs.writeFileSync(path.join(workspace, '.agent-memory', 'agent.yaml'), 'embedding:\n  provider: builtin\n');
  const cli = path.join(ext, 'dist', 'cli.js');
  const env = { ...process.env, AGENT_MEMORY_HOME: home };
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [cli, ...args, '--workspace', workspace, '--json'], { encoding: 'utf8', env, timeout: 120_000 });
  const added = run('add', 'Releases are cut from the main branch every second Tuesday by the on-call engineer.');
  assert.equal(added.status, 0, added.stderr);
  type Embedded = { id: string; embeddingStatus: string; embeddingVersion: string | null };
  const memory = (JSON.parse(added.stdout) as { memory: Embedded }).memory;
  // A write waits 4 s for its vector (WRITE_EMBED_WAIT_MS), then commits it pending for the
  // background to embed: a cold model on a loaded machine can take longer. Either way the vector
  // must come from the built-in model of the VSIX (checked below, once an owner has embedded it).
  assert.ok(['ready', 'pending'].includes(memory.embeddingStatus), memory.embeddingStatus);
  const found = run('search', 'when do we cut a release');
  assert.equal(found.status, 0, found.stderr);
  assert.match(found.stdout, /second Tuesday/);
  // The keychain's prebuilt binary loads from the VSIX (asked only, nothing kept; whether it answers depends on the machine).
  const status = spawnSync(process.execPath, [cli, 'encryption', 'status', '--workspace', workspace, '--json'], {
    encoding: 'utf8',
    env: { ...env, AGENT_MEMORY_KEYCHAIN: '' },
    timeout: 120_000,
  });
  assert.equal(status.status, 0, status.stderr);
  assert.doesNotMatch((JSON.parse(status.stdout) as { keychain: { reason?: string } }).keychain.reason ?? '', /could not be loaded/);

  // The packaged MCP server, through the SDK's own client.
  const client = new Client({ name: 'packaging-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--workspace', workspace],
      env: env as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'recall_memories'));
    const answer = await client.callTool({ name: 'recall_memories', arguments: { query: 'release schedule' } });
    assert.match(JSON.stringify(answer.content), /second Tuesday/);
    // The MCP server owns the store (it answered): a pending vector is embedded in its background.
    const embedded = await until(
      'the memory embedded',
      () => {
        if (memory.embeddingStatus === 'ready') return memory;
        const got = run('get', memory.id);
        assert.equal(got.status, 0, got.stderr);
        const m = JSON.parse(got.stdout) as Embedded;
        return m.embeddingStatus === 'ready' ? m : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    assert.match(
      embedded.embeddingVersion ?? '',
      /^builtin-use-lite-/,
      'embedded by the built-in model loaded from the VSIX, not a fallback',
    );
  } finally {
    await client.close();
  }
});
