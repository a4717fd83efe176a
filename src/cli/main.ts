/**
 * `agent-memory`: the project's memory from a terminal or any agent (bundled to dist/cliMain.js,
 * which dist/cli.js runs: entry.ts; plain Node 20+). Owner or client of the shared store,
 * transparently (connect.ts). stdout carries only the answer (exactly one JSON object with
 * --json, or an export written to `-`); errors are one line on stderr. Exit codes: 0 ok,
 * 1 failure, 2 usage (a mistake on the command line: the usage follows on stderr).
 */
import type { Readable, Writable } from 'node:stream';
import { EngineError } from '../engine/errors';
import { errorLine } from '../present/errorText';
import { UsageError, parseCli, type CliArgs } from './args';
import { COMMAND_TABLE, type CommandIo } from './commands';
import { checkPlaces } from './places';
import { connectEngine } from './connect';
import { startMcp } from '../mcp/start';
import { CliFailure } from './failure';
import { importRecoveryKey } from './encryption';
import { commandUsage, mainUsage, usageHint } from './spec';
import { VERSION } from './version';
import type { EngineClient } from '../engine/client/engineClient';
import type { EngineMethod } from '../engine/protocol';
import { HOOK_EVENTS, readHookInput, runHook, type HookEvent } from './hook';

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
  /** The process's streams, for `-` (stdin / stdout) and /dev/stdout; default: process's own. */
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseCli(argv, io.cwd);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailure(e, io);
  }
  if (parsed.kind === 'version') {
    io.out(`agent-memory ${VERSION}`);
    return 0;
  }
  if (parsed.kind === 'help') {
    io.out(parsed.command ? commandUsage(parsed.command) : mainUsage());
    return 0;
  }
  const args = parsed.args;
  try {
    checkPlaces(args);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(e, io);
    io.err(`agent-memory: ${oneLine(e)}`);
    return 1;
  }
  // The MCP server (and its SDK) is evaluated only for `mcp`: other commands, hooks above all, start
  // without it. Its engine starts first, and opens the store while the SDK is evaluated.
  if (args.command === 'mcp') {
    const started = startMcp(args, io);
    if (typeof started === 'number') return started;
    await started.begun; // the engine's thread starts before the SDK is evaluated (McpStart.begun)
    return (await import('../mcp/server.js')).runMcp(args, io, undefined, started);
  }
  if (args.command === 'hook') return runHookCommand(args, io);
  if (args.command === 'encryption' && args.positionals[0] === 'import-recovery-key') return runLocal(args, io);
  return runOne(args, io);
}

/** A mistake on the command line: what was wrong, then the usage (all of it with no arguments), exit 2. */
function usageFailure(e: UsageError, io: CliIo): number {
  io.err(e.message ? `agent-memory: ${e.message}\n${usageHint(e.command)}` : mainUsage());
  return 2;
}

/** Commands whose first request embeds text (EngineClient.expect). */
const EMBEDDING_COMMANDS: Partial<Record<CliArgs['command'], EngineMethod>> = { search: 'search', add: 'memory.create' };

async function runOne(args: CliArgs, io: CliIo): Promise<number> {
  const verbose = args.verbose;
  const engine = connectEngine({
    workspace: args.workspace,
    ...(args.home ? { home: args.home } : {}),
    client: `agent-memory ${args.command}`,
    // As the owner, a short command runs no schedule that is due (a long-lived owner does).
    runSchedules: false,
    ...(verbose ? { log: (l) => io.err(l) } : {}),
  });
  const streams: CommandIo = { stdin: io.stdin ?? process.stdin, stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr };
  try {
    const started = engine.start();
    // The command's request that needs the embedder: the engine loads it while the store opens.
    const embeds = EMBEDDING_COMMANDS[args.command];
    if (embeds) engine.expect(embeds);
    await started;
    const command = COMMAND_TABLE[args.command as keyof typeof COMMAND_TABLE];
    const result = await command(engine, args, streams);
    (result.toStderr ? io.err : io.out)(args.json ? JSON.stringify(result.json) : result.text);
    if (!result.failure) return 0;
    io.err(`agent-memory: ${result.failure}`);
    return 1;
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(e, io);
    io.err(`agent-memory: ${oneLine(e)}`);
    return 1;
  } finally {
    await engine.shutdown().catch(() => undefined);
  }
}

/**
 * `agent-memory hook <event>` (hook.ts): Claude Code's input on stdin, its JSON on stdout. The
 * project is the input's `cwd` unless --workspace says otherwise. Never exit 2 (it would block
 * Claude Code's prompt): a failure is one line on stderr, exit 1.
 */
async function runHookCommand(args: CliArgs, io: CliIo): Promise<number> {
  const event = args.positionals[0];
  if (!event || !(HOOK_EVENTS as readonly string[]).includes(event)) {
    io.err(`agent-memory: hook: the event must be one of ${HOOK_EVENTS.join(', ')}${event ? `, got "${event}"` : ''}`);
    return 1;
  }
  let engine: EngineClient | undefined;
  try {
    const input = await readHookInput(io.stdin ?? process.stdin, event as HookEvent);
    const workspace = !args.workspaceGiven && input.cwd ? input.cwd : args.workspace;
    engine = connectEngine({
      workspace,
      ...(args.home ? { home: args.home } : {}),
      client: `agent-memory hook ${event}`,
      // As the owner (nobody else has the store), a hook answers and exits: no schedule, no
      // background embedding that would load the model and hold the exit (docs/sessions.md).
      runSchedules: false,
      backgroundWork: false,
      ...(args.verbose ? { log: (l) => io.err(l) } : {}),
    });
    const started = engine.start();
    if (event === 'user-prompt-submit') engine.expect('search'); // it recalls for the prompt
    await started;
    const out = await runHook(engine, event as HookEvent, input);
    if (out) io.out(out);
    return 0;
  } catch (e) {
    io.err(`agent-memory: ${oneLine(e)}`);
    return 1;
  } finally {
    await engine?.shutdown().catch(() => undefined);
  }
}

/** A command that needs no engine (importing a recovery key: the store it opens cannot open before). */
async function runLocal(args: CliArgs, io: CliIo): Promise<number> {
  try {
    const result = await importRecoveryKey(args, {
      stdin: io.stdin ?? process.stdin,
      stdout: io.stdout ?? process.stdout,
      stderr: io.stderr ?? process.stderr,
    });
    io.out(args.json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(e, io);
    io.err(`agent-memory: ${oneLine(e)}`);
    return 1;
  }
}

/** The sentence of the error's code and the engine's message (errorText.ts), with the code for scripts. */
function oneLine(e: unknown): string {
  if (e instanceof CliFailure) return `${e.message} [${e.code}]`;
  const code = e instanceof EngineError ? ` [${e.code}]` : '';
  return `${errorLine(e)}${code}`.replace(/\s*\n\s*/g, ' ');
}

/** Runs this process's command line and exits with its code (dist/cli.js calls it: entry.ts). */
export function main(): void {
  runCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(`${s}\n`),
    err: (s) => process.stderr.write(`${s}\n`),
    cwd: process.cwd(),
  }).then(
    (code) => {
      // Flush stdout before leaving: a pipe reader must get the whole JSON object.
      process.stdout.write('', () => process.exit(code));
    },
    (e) => {
      process.stderr.write(`agent-memory: ${oneLine(e)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) main();
