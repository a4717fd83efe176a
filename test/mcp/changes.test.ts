// @tier process
// What changed, for agents, through `agent-memory mcp` and the MCP SDK's own client (docs/changes.md):
// a subscription to memory://changes/project is told of each change, the resource then lists it,
// memory_changes_since pages the feed after a cursor (the agent's writes by the agent's name),
// and a subscription to a resource that does not exist is a clear error.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ChangePage } from '../../src/engine/protocol';
import { mcpProject } from '../helpers/mcpClient';
import { resultData, textOf } from '../helpers/mcpOutput';

test('a subscription is told of each change; memory_changes_since pages the feed after a cursor', { timeout: 180_000 }, async () => {
  const { transport } = mcpProject('am-mcp-changes-');
  const client = new Client({ name: 'changes-agent', version: '1.0.0' });
  const updated: string[] = [];
  let told: () => void = () => undefined;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
    told();
  });
  await client.connect(transport);
  try {
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    const { resources } = await client.listResources();
    // The two change feeds and the project briefing (no memory or session yet to list: docs/mcp.md "Resources").
    assert.deepEqual(resources.map((r) => r.uri).sort(), [
      'memory://changes/global',
      'memory://changes/project',
      'memory://project/context',
    ]);
    await client.subscribeResource({ uri: 'memory://changes/project' });
    await assert.rejects(client.subscribeResource({ uri: 'memory://nothing' }), /No resource memory:\/\/nothing to subscribe to/);

    const notified = new Promise<void>((resolve) => (told = resolve));
    const stored = resultData<{ id: string }>(
      await client.callTool({
        name: 'store_memory',
        arguments: { content: 'The staging database is refreshed from production every Sunday.' },
      }),
    );
    await notified;
    assert.deepEqual(updated, ['memory://changes/project']);

    const read = await client.readResource({ uri: 'memory://changes/project' });
    const page = JSON.parse((read.contents[0] as { text: string }).text) as ChangePage;
    assert.deepEqual(
      page.events.map((e) => [e.type, e.memoryId]),
      [['memory.created', stored.id]],
    );
    assert.ok(!JSON.stringify(page).includes('staging database'), 'no memory text in the feed');

    await client.callTool({ name: 'delete_memory', arguments: { id: stored.id } });
    const out = await client.callTool({ name: 'memory_changes_since', arguments: { cursor: page.cursor } });
    assert.match(textOf(out), /^1 change after cursor 1, oldest first; give cursor 2 next time\./);
    const after = resultData<ChangePage>(out);
    assert.deepEqual(
      after.events.map((e) => [e.cursor, e.type, e.memoryId, e.actor]),
      [[2, 'memory.deleted', stored.id, 'changes-agent']],
    );
    const none = await client.callTool({ name: 'memory_changes_since', arguments: { cursor: 2, scope: 'global' } });
    assert.match(textOf(none), /^No changes after cursor 2\./);
    const bad = await client.callTool({ name: 'memory_changes_since', arguments: { cursor: -1 } });
    assert.equal(bad.isError, true);
  } finally {
    await client.close();
  }
});
