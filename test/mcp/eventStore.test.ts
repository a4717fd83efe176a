// The store of resumable MCP streams (src/mcp/eventStore.ts): a replay gives the messages of the
// event's own stream after it, in order; what is evicted (beyond the count or the size) cannot be
// resumed from, and says so with an empty stream id.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_CHARS, MAX_EVENTS, SessionEventStore } from '../../src/mcp/eventStore';

const note = (n: number, pad = ''): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n, pad } });

async function replay(store: SessionEventStore, after: string) {
  const sent: { id: string; n: unknown }[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: (id, m) => Promise.resolve(void sent.push({ id, n: (m as unknown as { params: { n: number } }).params.n })),
  });
  return { stream, sent };
}

test('a replay sends the messages of its own stream after the event, in order', async () => {
  const store = new SessionEventStore();
  const a1 = await store.storeEvent('a', note(1));
  await store.storeEvent('b', note(2));
  const a3 = await store.storeEvent('a', note(3));
  const a4 = await store.storeEvent('a', note(4));
  const r = await replay(store, a1);
  assert.equal(r.stream, 'a');
  assert.deepEqual(r.sent, [
    { id: a3, n: 3 },
    { id: a4, n: 4 },
  ]);
  assert.equal(await store.getStreamIdForEventId(a3), 'a');
  assert.deepEqual(await replay(store, 'a|999'), { stream: '', sent: [] }, 'an id never given: nothing to resume');
});

test('the oldest messages go beyond the count or the size kept; the newest always stays', async () => {
  const store = new SessionEventStore();
  const first = await store.storeEvent('s', note(0));
  for (let i = 1; i <= MAX_EVENTS; i++) await store.storeEvent('s', note(i));
  assert.equal((await replay(store, first)).stream, '', 'evicted by count');
  const big = 'x'.repeat(MAX_CHARS / 4);
  const b1 = await store.storeEvent('s', note(1, big));
  for (let i = 2; i <= 5; i++) await store.storeEvent('s', note(i, big));
  assert.equal((await replay(store, b1)).stream, '', 'evicted by size');
  const huge = await store.storeEvent('s', note(6, 'y'.repeat(MAX_CHARS * 2)));
  assert.equal(await store.getStreamIdForEventId(huge), 's', 'a message larger than the limit is still kept alone');
});
