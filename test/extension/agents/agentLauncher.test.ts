// The launcher agents start (issue 19, item 6): a script at a fixed path in the store home that
// survives extension updates, run here as a real process. The CLI is a stand-in script that
// prints what it was started with, so each choice of the launcher can be seen.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureLauncher, launcherPath, launcherScript, type LauncherInput } from '../../../src/extension/agents/agentLauncher';
import { MCP_SERVER_NODE_FLAGS } from '../../../src/mcp/serverNodeFlags';
import { tmpDir } from '../../helpers/tmp';

const posix = process.platform !== 'win32';
const ID = 'agent-memory.agent-memory';

/** An "installed extension" folder whose dist/cli.js prints its argv, Node options, ELECTRON_RUN_AS_NODE and runtime as JSON. */
function fakeExtension(extensions: string, version: string): string {
  const cli = path.join(extensions, `${ID}-${version}`, 'dist', 'cli.js');
  fs.mkdirSync(path.dirname(cli), { recursive: true });
  fs.writeFileSync(
    cli,
    `process.stdout.write(JSON.stringify({ version: ${JSON.stringify(version)}, argv: process.argv.slice(2), nodeOptions: process.execArgv, electron: process.env.ELECTRON_RUN_AS_NODE ?? null, exec: process.execPath }));\n`,
  );
  return cli;
}

function setup(): { root: string; input: LauncherInput; extensions: string } {
  const root = tmpDir('am-launcher-');
  const extensions = path.join(root, "it's vscode", 'extensions'); // a quote and a space in the path
  const cliPath = fakeExtension(extensions, '0.1.0');
  return { root, extensions, input: { home: path.join(root, 'store home'), cliPath, runtime: process.execPath, extensionId: ID } };
}

function run(launcher: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(launcher, args, { encoding: 'utf8', env: { HOME: process.env.HOME ?? '/', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test(
  'the launcher is written once into <home>/bin, executable, the home private; unchanged content is not rewritten',
  { skip: !posix && 'POSIX launcher' },
  () => {
    const { input } = setup();
    const first = ensureLauncher(input);
    assert.deepEqual(first, { file: path.join(input.home, 'bin', 'agent-memory'), outcome: 'created' });
    assert.equal(fs.statSync(first.file).mode & 0o777, 0o755);
    assert.equal(fs.statSync(input.home).mode & 0o777, 0o700, 'the store home is created readable by its user only');
    const mtime = fs.statSync(first.file).mtimeMs;
    assert.equal(ensureLauncher(input).outcome, 'unchanged');
    assert.equal(fs.statSync(first.file).mtimeMs, mtime);
    assert.equal(ensureLauncher({ ...input, cliPath: input.cliPath.replace('0.1.0', '0.2.0') }).outcome, 'updated');
    assert.deepEqual(fs.readdirSync(path.dirname(first.file)), ['agent-memory'], 'no temporary file left behind');
    assert.equal(launcherPath('C:\\m', 'win32'), path.join('C:\\m', 'bin', 'agent-memory.cmd'));
    assert.match(launcherScript({ ...input, platform: 'win32' }), /^@echo off\r\n[\s\S]*"%RUNTIME%" "%CLI%" --home "[^"]+" %\*\r\n/);
  },
);

test(
  "the launcher runs the installed CLI with VS Code's runtime as Node and passes --home first",
  { skip: !posix && 'POSIX launcher' },
  () => {
    const { input } = setup();
    const { file } = ensureLauncher(input);
    const r = run(file, ['mcp', '--workspace', '/w'], { PATH: '/usr/bin:/bin' });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), {
      version: '0.1.0',
      argv: ['--home', input.home, 'mcp', '--workspace', '/w'],
      nodeOptions: ['--v8-pool-size=1'],
      electron: '1',
      exec: process.execPath,
    });
    assert.deepEqual(MCP_SERVER_NODE_FLAGS, ['--v8-pool-size=1']);
  },
);

test(
  "the MCP server's Node options: for `mcp` only, on Node (VS Code's runtime or node on the PATH), never to Electron",
  { skip: !posix && 'POSIX launcher' },
  () => {
    const { root, input } = setup();
    const nodeOptions = (file: string, args: string[], PATH = '/usr/bin:/bin') => {
      const r = run(file, args, { PATH });
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out) as { nodeOptions: string[] }).nodeOptions;
    };
    const { file } = ensureLauncher(input);
    assert.deepEqual(nodeOptions(file, ['mcp']), ['--v8-pool-size=1']);
    assert.deepEqual(nodeOptions(file, ['search', 'mcp']), [], 'another command, even with an argument "mcp"');
    assert.deepEqual(nodeOptions(file, ['hook']), []);
    // Desktop VS Code: the runtime is Electron, whose Node mode makes its own V8 platform. Node stands in
    // for it here: what the launcher passes is what the stand-in prints.
    ensureLauncher({ ...input, runtimeIsElectron: true });
    assert.deepEqual(nodeOptions(file, ['mcp']), []);
    assert.doesNotMatch(launcherScript({ ...input, runtimeIsElectron: true }), /exec "\$runtime" \$server_flags/);
    // Electron gone: node on the PATH gets them.
    const gone = ensureLauncher({ ...input, runtimeIsElectron: true, runtime: path.join(root, 'gone', 'code') });
    assert.deepEqual(nodeOptions(gone.file, ['mcp'], `${path.dirname(process.execPath)}:/usr/bin:/bin`), ['--v8-pool-size=1']);
  },
);

test('the runtime gone: node on the PATH; neither: a message on stderr and exit 1', { skip: !posix && 'POSIX launcher' }, () => {
  const { root, input } = setup();
  const { file } = ensureLauncher({ ...input, runtime: path.join(root, 'gone', 'code') });
  const viaPath = run(file, ['stats'], { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` });
  assert.equal(viaPath.code, 0, viaPath.err);
  assert.deepEqual(JSON.parse(viaPath.out).argv, ['--home', input.home, 'stats']);
  assert.equal(JSON.parse(viaPath.out).electron, null);
  const empty = path.join(root, 'empty-bin');
  fs.mkdirSync(empty);
  const none = run(file, ['stats'], { PATH: empty });
  assert.equal(none.code, 1);
  assert.equal(none.out, '');
  assert.match(
    none.err,
    /^agent-memory: no Node\.js to run it: the VS Code that installed it \(.*gone\/code\) is gone and there is no node on the PATH\. Start VS Code once .* or install Node\.js 20 or later\.\n$/,
  );
});

test(
  'after an update the launcher finds the new version; uninstalled: it says so and exits 1',
  { skip: !posix && 'POSIX launcher' },
  () => {
    const { input, extensions } = setup();
    const { file } = ensureLauncher(input);
    fs.rmSync(path.join(extensions, `${ID}-0.1.0`), { recursive: true });
    fakeExtension(extensions, '0.2.0');
    const updated = run(file, ['mcp'], { PATH: '/usr/bin:/bin' });
    assert.equal(updated.code, 0, updated.err);
    assert.equal(JSON.parse(updated.out).version, '0.2.0');
    fs.rmSync(path.join(extensions, `${ID}-0.2.0`), { recursive: true });
    const gone = run(file, ['mcp'], { PATH: '/usr/bin:/bin' });
    assert.equal(gone.code, 1);
    assert.equal(gone.out, '');
    assert.match(
      gone.err,
      /^agent-memory: the Agent Memory extension is no longer installed \(.*0\.1\.0\/dist\/cli\.js is gone\)\. Install it in VS Code again, or remove agent-memory from this agent's MCP configuration\.\n$/,
    );
  },
);
