/**
 * How a store's owner that is closing treats the requests of its clients (ARCHITECTURE.md "One
 * owner, many clients"): it finishes what it accepted — each request already running is answered
 * before the connection closes, so a client never loses the answer to a change that was made —
 * and refuses what arrives from then on with `engine_closing` (not run: the client sends it
 * again to the next owner). A request still running after DRAIN_MS is cancelled, so a closing
 * owner cannot be held open for long; its client then sees the owner go away with it in flight.
 */
import type * as net from 'node:net';
import { EngineError } from '../../errors';
import type { RpcServer } from '../requestDispatcher';

/**
 * The longest a closing owner waits for the requests it accepted: most of the 4–5 s its own
 * window or CLI gives the whole shutdown (EngineClient.shutdown), so a write waiting for a slow
 * embedder (up to WRITE_EMBED_WAIT_MS) usually still gets its answer.
 */
export const DRAIN_MS = 3000;

export function closingError(storeDir: string): EngineError {
  return new EngineError('engine_closing', `The process serving the memory store at ${storeDir} is closing; the request was not run.`);
}

/** Refuses new requests on every connection and waits (up to `ms`) until the running ones are answered. */
export async function drainConnections(rpcs: RpcServer[], storeDir: string, ms = DRAIN_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms)));
  const drained = Promise.all(rpcs.map((r) => r.drain(() => closingError(storeDir)))).then(() => false);
  const late = await Promise.race([drained, timedOut]);
  clearTimeout(timer);
  if (late) for (const r of rpcs) r.cancelAll();
}

/** Ends every connection after its answers are written (`stopped`: the server's close); one that lingers is cut after 1 s. */
export async function endConnections(sockets: net.Socket[], stopped: Promise<void>): Promise<void> {
  for (const s of sockets) s.end();
  const cut = setTimeout(() => sockets.forEach((s) => s.destroy()), 1000);
  await stopped;
  clearTimeout(cut);
}
