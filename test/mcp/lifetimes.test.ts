// @tier process
// MCP lifetimes and access (docs/lifecycle.md): store_memory asked explicitly is permanent, an
// automatic capture is short-term, ttl_seconds sets a lifetime; recall_memories hands memories
// to an agent, which counts as one access (once an hour).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpProject } from '../helpers/mcpClient';
import { resultData, textOf } from '../helpers/mcpOutput';

test('MCP store_memory: permanent unless automatic or ttl_seconds; recall_memories counts as an access', { timeout: 180_000 }, async () => {
  const { transport } = mcpProject('am-mcp-life-');
  const client = new Client({ name: 'agent-memory-test', version: '1.0.0' });
  await client.connect(transport);
  const store = async (args: Record<string, unknown>) =>
    resultData<{ id: string }>(await client.callTool({ name: 'store_memory', arguments: args }));
  const get = async (id: string) =>
    resultData<{ expiresAt: string | null; ttlSeconds: number | null; accessCount: number }>(
      await client.callTool({ name: 'get_memory', arguments: { id } }),
    );
  try {
    const asked = await store({ content: 'The team agreed: database migrations run before the deploy, never after.' });
    const automatic = await store({ content: 'Observed while working: the linter takes about forty seconds.', automatic: true });
    const timed = await store({ content: 'The staging certificate is renewed this Friday by the ops team.', ttl_seconds: 7200 });
    assert.equal((await get(asked.id)).expiresAt, null, 'asked to store: permanent');
    assert.equal((await get(automatic.id)).ttlSeconds, 86400, 'an automatic capture: memory.default_ttl');
    assert.equal((await get(timed.id)).ttlSeconds, 7200);

    const recalled = textOf(await client.callTool({ name: 'recall_memories', arguments: { query: 'database migrations deploy' } }));
    assert.match(recalled, new RegExp(`id=${asked.id}`));
    let count = 0;
    for (let i = 0; i < 40 && count === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      count = (await get(asked.id)).accessCount;
    }
    assert.equal(count, 1, 'handed to an agent: one access');
    await client.callTool({ name: 'recall_memories', arguments: { query: 'database migrations deploy' } });
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await get(asked.id)).accessCount, 1, 'again within the hour: not counted twice');
  } finally {
    await client.close();
  }
});
