// A closing owner drains each connection (src/engine/worker/owner/drain.ts, RpcServer.drain): what
// arrives from then on is refused with engine_closing (not run), what runs is answered; what
// still runs when the drain's time is up is cancelled — and since its client never asked for
// that, it is not answered as `cancelled`: a request that ends anyway gets its result, one that
// stops gets no answer (its client sees the owner go away with it in flight and resends it, or
// reports its outcome as unknown).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { MemoryEngine } from '../../../../src/engine/worker/engine';
import { cancelledError } from '../../../../src/engine/errors';
import type { HandlerTable } from '../../../../src/engine/worker/handlers';
import type { FromEngineMessage, ToEngineMessage } from '../../../../src/engine/protocol';
import { RpcServer, type Port } from '../../../../src/engine/worker/requestDispatcher';
import { drainConnections } from '../../../../src/engine/worker/owner/drain';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until the call is cancelled (a search waiting for its query's embedding, which honours the signal). */
const untilCancelled = (_e: unknown, _p: unknown, c: { signal: AbortSignal }) =>
  new Promise((_, reject) => c.signal.addEventListener('abort', () => reject(cancelledError()), { once: true }));

test('a drain refuses new requests, answers the running ones, and does not answer those it cut short as cancelled', async () => {
  const answers: FromEngineMessage[] = [];
  const listeners: ((m: ToEngineMessage) => void)[] = [];
  const port: Port = { postMessage: (m) => answers.push(m), on: (_e, l) => listeners.push(l) };
  const handlers = {
    // Answered within the drain.
    'memory.get': async () => {
      await sleep(50);
      return { id: 'quick' };
    },
    // Still running when the drain's time is up: stops when cancelled.
    'memory.search': untilCancelled,
    // Still running when the drain's time is up: ends anyway (the change was made).
    'memory.update': async () => {
      await sleep(600);
      return { id: 'applied' };
    },
  } as unknown as HandlerTable;
  const rpc = new RpcServer(port, {} as MemoryEngine, handlers, () => undefined);
  const send = (id: number, method: string) => listeners.forEach((l) => l({ kind: 'request', id, method, params: {} } as ToEngineMessage));
  const answerTo = (id: number) => answers.find((m) => m.kind === 'response' && m.id === id);

  send(1, 'memory.get');
  send(2, 'memory.search');
  send(3, 'memory.update');
  const drained = drainConnections([rpc], '/store', 300);
  send(4, 'memory.get'); // arrives while the owner closes
  const refused = answerTo(4);
  assert.ok(refused?.kind === 'response' && !refused.ok && refused.error.code === 'engine_closing', 'refused at once, not run');
  await drained;
  const quick = answerTo(1);
  assert.ok(quick?.kind === 'response' && quick.ok, 'the request that ended within the drain is answered');

  await sleep(800);
  assert.equal(answerTo(2), undefined, 'the request the drain cut short is not answered (no `cancelled` nobody asked for)');
  const applied = answerTo(3);
  assert.ok(applied?.kind === 'response' && applied.ok, 'a request that ended after the cancellation is answered with its result');
});
