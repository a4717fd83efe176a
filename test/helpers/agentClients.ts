/**
 * Real agent clients for test/agents (process-heavy): Claude Code, Codex, Continue's `cn`, Gemini
 * CLI, GitHub Copilot CLI and the MCP Inspector, installed from npm at pinned versions into the
 * git-ignored `.vscode-test/agents/` the first time (and again when a pin changes), and the extension's CLI
 * bundled into a folder laid out like an installed extension, for the launcher to run.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './cliProcess';

export const CLIENT_PINS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.328', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  cn: { pkg: '@continuedev/cli', version: '1.5.47', bin: 'cn' },
  inspector: { pkg: '@modelcontextprotocol/inspector', version: '2.12.0', bin: 'mcp-inspector' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
} as const;
export type ClientName = keyof typeof CLIENT_PINS;

const CACHE = path.join(ROOT, '.vscode-test', 'agents');

/** The client's executable, installed on first use; a string saying why not when the install failed. */
export function installClient(name: ClientName): { bin: string } | { skip: string } {
  const pin = CLIENT_PINS[name];
  const bin = path.join(CACHE, 'node_modules', '.bin', pin.bin);
  const installed = path.join(CACHE, 'node_modules', ...pin.pkg.split('/'), 'package.json');
  const version = fs.existsSync(installed) ? (JSON.parse(fs.readFileSync(installed, 'utf8')) as { version: string }).version : undefined;
  if (version === pin.version && fs.existsSync(bin)) return { bin };
  fs.mkdirSync(CACHE, { recursive: true });
  if (!fs.existsSync(path.join(CACHE, 'package.json'))) fs.writeFileSync(path.join(CACHE, 'package.json'), '{ "private": true }\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--save-exact', `${pin.pkg}@${pin.version}`], {
    cwd: CACHE,
    encoding: 'utf8',
    env: { ...process.env, npm_config_yes: 'true' },
    timeout: 600_000,
  });
  if (r.status !== 0 || !fs.existsSync(bin)) {
    const lines = (r.stderr || r.error?.message || 'no output').trim().split('\n');
    const why = (lines.filter((l) => /npm error (code|errno|network|request|404)/.test(l)).join(' ') || lines.slice(-2).join(' ')).trim();
    return { skip: `could not install ${pin.pkg}@${pin.version} from npm: ${why}` };
  }
  return { bin };
}

/**
 * Bundles the CLI (its entry and its main bundle) and the engine worker (as `npm run build` does) into
 * `<extensions>/agent-memory.agent-memory-0.1.0/dist/` with the assets they read, and returns
 * the path of its cli.js. The folder is under the repository so the packages external in the
 * bundle as in the VSIX (`@energetic-ai/*`, `@napi-rs/keyring`) resolve from its node_modules.
 */
export async function buildExtension(extensions: string): Promise<string> {
  const dist = path.join(extensions, 'agent-memory.agent-memory-0.1.0', 'dist');
  await bundleCli(dist, { engine: path.join(ROOT, 'src/engine/worker/worker.ts') });
  fs.cpSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dist, 'sql-wasm.wasm'));
  fs.cpSync(path.join(ROOT, 'migrations'), path.join(dist, 'migrations'), { recursive: true });
  return path.join(dist, 'cli.js');
}

/**
 * Bundles the CLI into `outdir` as esbuild.mjs does: dist/cli.js, the small entry that runs
 * dist/cliMain.js with a code cache, beside dist/cliMain.js, plus any `extra` entry points. The
 * externals are the VSIX's (the embedders' packages and the keychain binding).
 */
export async function bundleCli(outdir: string, extra: Record<string, string> = {}): Promise<void> {
  const esbuild = await import('esbuild');
  const { NODE_EXTERNALS } = (await import(path.join(ROOT, 'scripts/vsix-runtime-deps.mjs'))) as { NODE_EXTERNALS: string[] };
  await esbuild.build({
    entryPoints: { cli: path.join(ROOT, 'src/cli/entry.ts'), cliMain: path.join(ROOT, 'src/cli/main.ts'), ...extra },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: NODE_EXTERNALS,
    logLevel: 'silent',
  });
}

/** A scratch folder under the repository's git-ignored .test-tmp/ (not /tmp: Codex refuses helpers there), removed at exit. */
export function scratchDir(prefix: string): string {
  const base = path.join(ROOT, '.test-tmp');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, prefix));
  if (!process.env.KEEP_TMP) process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs a command to its end (asynchronously: a fake model in this process must keep answering). */
export function runAsync(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** The environment of a client: a fresh HOME, no variable of ours or of the agents' own folders from the test's environment. */
export function clientEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home, NODE_OPTIONS: '' };
  for (const k of [
    'AGENT_MEMORY_HOME',
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'CONTINUE_GLOBAL_DIR',
    'COPILOT_HOME',
    'XDG_CONFIG_HOME',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'COPILOT_GITHUB_TOKEN',
  ])
    delete env[k];
  return { ...env, ...extra };
}
