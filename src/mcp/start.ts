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
  /**
   * Settles once the engine is under way — `spawned`: its thread started (this process owns the
   * store); `reached`: the engine answered or failed to start (another process owns it) — or,
   * `waited`, after {@link BEGIN_WAIT_MS}.
   * The engine's first steps (the store's folder, the owner's socket) are I/O callbacks: awaiting
   * this before evaluating the SDK (~60 ms of synchronous work) lets them run first, so the
   * engine's thread opens the store meanwhile instead of after.
   */
  begun: Promise<'spawned' | 'reached' | 'waited'>;
}

/** The longest the MCP handshake waits for the engine's first steps (a slow owner's socket must not hold it up). */
export const BEGIN_WAIT_MS = 100;

/** Checks `args`, reads the token file and starts the engine; a number is the exit code of a mistake, already told. */
export function startMcp(args: CliArgs, io: Io, beginWaitMs = BEGIN_WAIT_MS): McpStart | number {
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
  let spawned = () => {};
  const workerSpawned = new Promise<'spawned'>((resolve) => (spawned = () => resolve('spawned')));
  const engine = connectEngine({
    workspace: args.workspace,
    ...(args.home ? { home: args.home } : {}),
    client: 'agent-memory mcp',
    ...(args.verbose ? { log: (l: string) => io.err(l) } : {}),
    onWorkerSpawned: () => spawned(),
  });
  // The engine starts in the background: requests wait for it, the handshake does not.
  const starting = engine
    .start()
    .catch((e: unknown) => io.err(`agent-memory mcp: the memory engine could not start: ${(e as Error).message}`))
    .then(() => 'reached' as const);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), beginWaitMs)));
  const begun = Promise.race([workerSpawned, starting, waited]).finally(() => clearTimeout(timer));
  return { engine, token, begun };
}
