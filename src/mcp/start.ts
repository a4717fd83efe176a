/**
 * The first steps of `agent-memory mcp`, kept apart from the MCP SDK: check the arguments, read
 * the token file, start the engine. The CLI runs them before it evaluates the SDK and the tools
 * (about 60 ms), so the engine — which an agent's first request waits for — opens the store in
 * its thread meanwhile.
 */
import type { CliArgs } from '../cli/args';
import { connectEngine } from '../cli/connect';
import type { EngineClient } from '../engine/client/engineClient';
import { TokenFileError, readTokenFile } from './httpToken';

type Io = { err: (s: string) => void };

/** What `runMcp` goes on with: the engine (starting) and the bearer token given, if any. */
export interface McpStart {
  engine: EngineClient;
  token: string | undefined;
}

/** Checks `args`, reads the token file and starts the engine; a number is the exit code of a mistake, already told. */
export function startMcp(args: CliArgs, io: Io): McpStart | number {
  if (args.http === undefined && args.tokenFile !== undefined) {
    io.err('agent-memory mcp: --token-file goes with --http <port> (stdio needs no token)');
    return 2;
  }
  let token: string | undefined;
  try {
    token = args.tokenFile ? readTokenFile(args.tokenFile) : undefined;
  } catch (e) {
    if (!(e instanceof TokenFileError)) throw e;
    io.err(`agent-memory mcp: ${e.message}`);
    return 1;
  }
  const engine = connectEngine({
    workspace: args.workspace,
    ...(args.home ? { home: args.home } : {}),
    client: 'agent-memory mcp',
    ...(args.verbose ? { log: (l: string) => io.err(l) } : {}),
  });
  // The engine starts in the background: requests wait for it, the handshake does not.
  engine.start().catch((e) => io.err(`agent-memory mcp: the memory engine could not start: ${(e as Error).message}`));
  return { engine, token };
}
