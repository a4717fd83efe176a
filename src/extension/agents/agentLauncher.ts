/**
 * The `agent-memory` launcher other agents start (README "Other agents (MCP)"): a small
 * script at a fixed path in the store home, `<home>/bin/agent-memory` (`agent-memory.cmd` on
 * Windows), that runs the CLI of the extension installed now. The extension's own folder
 * changes with every update (`…/agent-memory-0.1.0/dist/cli.js`), so agents' configurations
 * name the launcher, never that folder. The extension rewrites it on every activation, only
 * when its content changed, atomically.
 *
 * What runs the CLI: the Node.js runtime of the VS Code that wrote the launcher (the extension
 * host's own executable, as Node through ELECTRON_RUN_AS_NODE, the way VS Code starts its MCP
 * servers), else `node` on the PATH; when neither exists it says so on stderr and exits 1. When
 * the recorded extension folder is gone (updated, VS Code not started since), any installed
 * version next to it is used; none: a message saying the extension is no longer installed,
 * exit 1. The store home is passed as `--home`, so agents that filter environment variables
 * (Codex passes only a few) still open this store. `agent-memory mcp` run by plain Node gets the
 * server's Node options (src/mcp/serverNodeFlags.ts); Electron's Node mode does not read them.
 *
 * No `vscode` import: the process tests write and run the same launcher.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateHome } from '../../engine/storeLocation';
import { MCP_SERVER_NODE_FLAGS, mcpServerNodeFlags } from '../../mcp/serverNodeFlags';

export const LAUNCHER_NAME = 'agent-memory';

export interface LauncherInput {
  /** The store home (resolveStoreHome): the launcher lives in `<home>/bin` and passes `--home <home>`. */
  home: string;
  /** Absolute path of dist/cli.js of the installed extension. */
  cliPath: string;
  /** The executable that runs the extension host (process.execPath): run as Node. */
  runtime: string;
  /** Whether `runtime` is Electron (desktop VS Code), whose Node mode takes no server options. Default false. */
  runtimeIsElectron?: boolean;
  /** The extension's id (`publisher.name`): its other installed versions are `<id>-<version>` folders. */
  extensionId: string;
  platform?: NodeJS.Platform;
}

export function launcherPath(home: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(home, 'bin', platform === 'win32' ? `${LAUNCHER_NAME}.cmd` : LAUNCHER_NAME);
}

/** A string in single quotes for sh (a ' inside becomes '\''). */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const HEADER = 'Written by the Agent Memory extension each time VS Code starts it: changes made here are replaced.';

function posixScript(input: LauncherInput, extensionsDir: string, cliRel: string): string {
  const msg = (s: string) => `echo ${shQuote(`agent-memory: ${s}`)} >&2`;
  // $server_flags is unquoted where used: empty, or options without spaces or patterns. VS Code's
  // runtime gets them unless it is Electron (the rule of serverNodeFlags.ts); node always does.
  const runtimeFlags = mcpServerNodeFlags({ electron: input.runtimeIsElectron === true }).length > 0 ? ' $server_flags' : '';
  return [
    '#!/bin/sh',
    `# agent-memory: runs the CLI (and MCP server) of the Agent Memory VS Code extension.`,
    `# ${HEADER}`,
    `cli=${shQuote(input.cliPath)}`,
    `runtime=${shQuote(input.runtime)}`,
    'if [ ! -f "$cli" ]; then',
    '  # Updated since this was written: any installed version of the extension will do.',
    `  for c in ${shQuote(extensionsDir)}/${shQuote(`${input.extensionId}-`)}*/${shQuote(cliRel)}; do`,
    '    if [ -f "$c" ]; then cli=$c; fi',
    '  done',
    'fi',
    'if [ ! -f "$cli" ]; then',
    `  ${msg(`the Agent Memory extension is no longer installed (${input.cliPath} is gone). Install it in VS Code again, or remove agent-memory from this agent's MCP configuration.`)}`,
    '  exit 1',
    'fi',
    '# Node options of a long-lived MCP server (src/mcp/serverNodeFlags.ts in the extension).',
    'server_flags=',
    `if [ "$1" = mcp ]; then server_flags=${shQuote(MCP_SERVER_NODE_FLAGS.join(' '))}; fi`,
    'if [ -x "$runtime" ]; then',
    `  ELECTRON_RUN_AS_NODE=1 exec "$runtime"${runtimeFlags} "$cli" --home ${shQuote(input.home)} "$@"`,
    'fi',
    'if command -v node >/dev/null 2>&1; then',
    `  exec node $server_flags "$cli" --home ${shQuote(input.home)} "$@"`,
    'fi',
    msg(
      `no Node.js to run it: the VS Code that installed it (${input.runtime}) is gone and there is no node on the PATH. Start VS Code once (it writes this launcher again) or install Node.js 20 or later.`,
    ),
    'exit 1',
    '',
  ].join('\n');
}

/** cmd.exe: %, ^, & and friends cannot appear unquoted; paths are quoted, messages avoid them. */
function windowsScript(input: LauncherInput, extensionsDir: string, cliRel: string): string {
  const plain = (s: string) => s.replace(/[%^&|<>()"]/g, ' ');
  return [
    '@echo off',
    'rem agent-memory: runs the CLI (and MCP server) of the Agent Memory VS Code extension.',
    `rem ${HEADER}`,
    'setlocal',
    `set "CLI=${input.cliPath}"`,
    `set "RUNTIME=${input.runtime}"`,
    `if not exist "%CLI%" for /d %%D in ("${extensionsDir}\\${input.extensionId}-*") do if exist "%%D\\${cliRel}" set "CLI=%%D\\${cliRel}"`,
    'if not exist "%CLI%" (',
    `  echo agent-memory: the Agent Memory extension is no longer installed. Install it in VS Code again, or remove agent-memory from this agent's MCP configuration. 1>&2`,
    '  exit /b 1',
    ')',
    'if exist "%RUNTIME%" (',
    '  set ELECTRON_RUN_AS_NODE=1',
    `  "%RUNTIME%" "%CLI%" --home "${input.home}" %*`,
    '  exit /b %ERRORLEVEL%',
    ')',
    'where node >nul 2>nul',
    'if errorlevel 1 (',
    `  echo agent-memory: no Node.js to run it: the VS Code that installed it ${plain(`(${input.runtime})`)} is gone and there is no node on the PATH. Start VS Code once or install Node.js 20 or later. 1>&2`,
    '  exit /b 1',
    ')',
    `node "%CLI%" --home "${input.home}" %*`,
    'exit /b %ERRORLEVEL%',
    '',
  ].join('\r\n');
}

/** The launcher's text for this platform. */
export function launcherScript(input: LauncherInput): string {
  // …/extensions/<id>-<version>/dist/cli.js: the folder holding every installed version.
  const extensionDir = path.dirname(path.dirname(input.cliPath));
  const extensionsDir = path.dirname(extensionDir);
  const cliRel = path.relative(extensionDir, input.cliPath);
  return (input.platform ?? process.platform) === 'win32'
    ? windowsScript(input, extensionsDir, cliRel.replace(/\//g, '\\'))
    : posixScript(input, extensionsDir, cliRel);
}

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Writes `content` to `file` only when it differs: to a temporary file next to it, flushed, then
 * renamed over the old one, so a reader never sees half a file. `mode`: the new file's mode
 * (an existing file keeps its own unless `forceMode`).
 */
export function writeIfChanged(file: string, content: string, opts: { mode?: number; forceMode?: boolean } = {}): WriteOutcome {
  const exists = fs.existsSync(file);
  const old = exists ? fs.readFileSync(file, 'utf8') : undefined;
  const oldMode = exists ? fs.statSync(file).mode & 0o777 : undefined;
  const mode = opts.forceMode || oldMode === undefined ? (opts.mode ?? 0o644) : oldMode;
  if (old === content) {
    if (oldMode !== mode) fs.chmodSync(file, mode);
    return 'unchanged';
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.chmodSync(tmp, mode); // the umask may have taken bits away
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return old === undefined ? 'created' : 'updated';
}

/** Writes the launcher when its content changed (executable, atomically); returns its path and what happened. */
export function ensureLauncher(input: LauncherInput): { file: string; outcome: WriteOutcome } {
  const platform = input.platform ?? process.platform;
  const file = launcherPath(input.home, platform);
  ensurePrivateHome(input.home);
  const outcome = writeIfChanged(file, launcherScript(input), { mode: 0o755, forceMode: true });
  return { file, outcome };
}
