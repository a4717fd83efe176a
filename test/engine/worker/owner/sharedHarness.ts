/** EngineClients on a shared store (owner or client through transport/sharedTransport.ts), for the server tests. */
import { EngineClient } from '../../../../src/engine/client/engineClient';
import type { EngineInit } from '../../../../src/engine/protocol';
import { SharedTransport } from '../../../../src/engine/client/sharedTransport';
import { spawnTsWorker } from '../../harness';

export interface SharedClient {
  client: EngineClient;
  /** The transport of the current connection (the latest after a takeover). */
  transport(): SharedTransport | undefined;
}

export function sharedClient(init: EngineInit, name: string): SharedClient {
  let current: SharedTransport | undefined;
  const client = new EngineClient({
    init: { ...init, settings: { 'embedding.provider': 'hash', ...init.settings } },
    spawn: (i) => (current = new SharedTransport({ init: i, spawnWorker: spawnTsWorker, client: name })),
    backoff: { initialMs: 20, maxMs: 200, maxRestarts: 1000, windowMs: 60_000 },
  });
  return { client, transport: () => current };
}
