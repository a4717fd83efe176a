/**
 * `agent-memory`: the project's memory from a terminal or any agent (bundled to dist/cli.js,
 * plain Node 20+). Owner or client of the shared store, transparently (connect.ts). stdout
 * carries only the answer (exactly one JSON object with --json); errors are one line on
 * stderr. Exit codes: 0 ok, 1 error, 2 usage.
 */
import { EngineError } from '../engine/errors';
import { errorLine } from '../engine/errorText';
import { USAGE, UsageError, parseCli, type CliArgs } from './args';
import { COMMAND_TABLE } from './commands';
import { connectEngine } from './connect';
import { runMcp } from '../mcp/server';

export async function runCli(argv: string[], io: { out: (s: string) => void; err: (s: string) => void; cwd: string }): Promise<number> {
  let args: CliArgs | 'help';
  try {
    args = parseCli(argv, io.cwd);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`agent-memory: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (args.command === 'mcp') {
    return runMcp(args, io);
  }
  return runOne(args, io);
}

async function runOne(args: CliArgs, io: { out: (s: string) => void; err: (s: string) => void }): Promise<number> {
  const verbose = args.verbose;
  const engine = connectEngine({
    workspace: args.workspace,
    ...(args.home ? { home: args.home } : {}),
    client: `agent-memory ${args.command}`,
    ...(verbose ? { log: (l) => io.err(l) } : {}),
  });
  try {
    await engine.start();
    const command = COMMAND_TABLE[args.command as keyof typeof COMMAND_TABLE];
    const result = await command(engine, args);
    io.out(args.json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`agent-memory: ${e.message}\n${USAGE}`);
      return 2;
    }
    io.err(`agent-memory: ${oneLine(e)}`);
    return 1;
  } finally {
    await engine.shutdown().catch(() => undefined);
  }
}

/** The sentence of the error's code and the engine's message (errorText.ts), with the code for scripts. */
function oneLine(e: unknown): string {
  const code = e instanceof EngineError ? ` [${e.code}]` : '';
  return `${errorLine(e)}${code}`.replace(/\s*\n\s*/g, ' ');
}

if (require.main === module) {
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
