// @tier process
// The command line of `agent-memory` as a well-made CLI (clig.dev), run as real processes:
// --version / -V, help for every command (`help <command>`, `<command> --help`, `-h`) with its
// options and an example, no arguments → the usage on stderr and exit 2, an unknown command or
// option named with the closest one suggested, and a --home or --workspace that cannot be the
// store's home or the project stops with a clear error before anything is created.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { ROOT, runCli, type CliRun } from '../helpers/cliProcess';
import { COMMANDS } from '../../src/cli/args';
import { runCli as runCliInProcess } from '../../src/cli/main';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const env = { AGENT_MEMORY_HOME: path.join(tmpDir('am-cli-usage-'), 'home') };

function usageError(r: CliRun, pattern: RegExp): void {
  assert.equal(r.code, 2, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.match(r.stderr, pattern);
}

test('--version and -V print the version of package.json', async () => {
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `agent-memory ${pkg.version}\n`);
  }
});

test('no arguments: the usage on stderr and exit 2; --help and help: the usage on stdout and exit 0', async () => {
  const none = await runCli([], env);
  usageError(none, /^Usage: agent-memory <command>/);
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = await runCli(args, env);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: agent-memory <command>/);
    assert.match(r.stdout, /agent-memory help <command>/, 'says where the per-command help is');
    assert.match(r.stdout, /Exit codes: 0 ok, 1 failure, 2 usage/);
    for (const c of COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c}\\b`, 'm'), `lists ${c}`);
  }
});

/** runCli in this process (no engine is started for help): what it printed and its exit code. */
async function inProcess(args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCliInProcess(args, { out: (s) => (stdout += `${s}\n`), err: (s) => (stderr += `${s}\n`), cwd: ROOT });
  return { code, stdout, stderr };
}

test('help for every command: usage, options and an example, three ways', async () => {
  for (const c of COMMANDS) {
    const r = await inProcess(['help', c]);
    assert.equal(r.code, 0, `help ${c}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: agent-memory ${c}\\b`), c);
    assert.match(r.stdout, /\nExample/, `${c} has an example`);
    assert.match(r.stdout, /--workspace <folder>/, `${c} lists the common options`);
    assert.match(r.stdout, /Exit codes: 0 ok, 1 failure, 2 usage/);
  }
  const search = (await runCli(['help', 'search'], env)).stdout;
  assert.match(search, /--limit <n>/);
  assert.match(search, /agent-memory search "/);
  assert.equal((await runCli(['search', '--help'], env)).stdout, search, 'search --help is help search');
  assert.equal((await runCli(['search', '-h'], env)).stdout, search, 'search -h is help search');
  assert.match((await runCli(['help', 'import'], env)).stdout, /- reads stdin/);
  assert.match((await runCli(['help', 'export'], env)).stdout, /- writes to stdout/);
});

test('an unknown command or option says what was given and suggests the closest', async () => {
  usageError(await runCli(['serch', 'docker'], env), /^agent-memory: unknown command "serch"\. Did you mean "search"\?/);
  // The pointer to the commands is said once (it used to end the message and follow it too).
  usageError(
    await runCli(['frobnicate'], env),
    /^agent-memory: unknown command "frobnicate"\.\nRun "agent-memory help" for the commands\.\n$/,
  );
  usageError(await runCli(['help', 'lst'], env), /^agent-memory: unknown command "lst"\. Did you mean "list"\?/);
  usageError(await runCli(['list', '--limt', '5'], env), /^agent-memory: list: unknown option --limt\. Did you mean --limit\?/);
  usageError(
    await runCli(['get', 'abc', '--reason', 'x'], env),
    /^agent-memory: get: --reason is not an option of get \(it goes with delete\)/,
  );
  usageError(await runCli(['list', '--bogus'], env), /^agent-memory: list: unknown option --bogus\. Run "agent-memory help list"/);
  usageError(await runCli(['search', 'x', '--limit'], env), /^agent-memory: search: --limit needs a value/);
});

test('--home that is a file, a --workspace that does not exist: a clear error, nothing created', { timeout: 60_000 }, async () => {
  const root = tmpDir('am-cli-places-');
  const ws = fakeClone(root, 'repo');
  const file = path.join(root, 'not-a-folder');
  fs.writeFileSync(file, 'x');
  usageError(
    await runCli(['list', '--workspace', ws, '--home', file], env),
    /^agent-memory: --home .*not-a-folder is a file, not a folder/,
  );
  const viaEnv = await runCli(['list', '--workspace', ws], { AGENT_MEMORY_HOME: file });
  assert.equal(viaEnv.code, 1, viaEnv.stderr);
  assert.match(viaEnv.stderr, /^agent-memory: AGENT_MEMORY_HOME .*not-a-folder is a file, not a folder/);
  const home = path.join(root, 'home');
  const missing = path.join(root, 'no-such-project');
  usageError(
    await runCli(['add', 'Something worth keeping about the build.', '--workspace', missing, '--home', home], env),
    /^agent-memory: --workspace .*no-such-project does not exist/,
  );
  usageError(
    await runCli(['list', '--workspace', file, '--home', home], env),
    /^agent-memory: --workspace .*not-a-folder is a file, not a folder/,
  );
  usageError(await runCli(['mcp', '--workspace', missing, '--home', home], env), /^agent-memory: --workspace .*does not exist/);
  assert.ok(!fs.existsSync(home), 'no store home was created');
  assert.ok(!fs.existsSync(missing), 'the missing folder was not created');
});

test('the version is bundled at build time: the bundle needs no package.json and holds only its version', async () => {
  const dir = tmpDir('am-cli-version-');
  const out = path.join(dir, 'version.cjs');
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'src/cli/version.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: out,
    logLevel: 'silent',
  });
  const bundle = fs.readFileSync(out, 'utf8');
  assert.ok(bundle.includes(JSON.stringify(pkg.version)), 'the version is in the bundle');
  assert.ok(!bundle.includes('contributes'), 'not the whole package.json');
  // Run from a folder without a package.json: the version comes from the bundle alone.
  const r = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(out)}).VERSION)`], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  assert.equal(r.stdout, pkg.version, r.stderr);
});
