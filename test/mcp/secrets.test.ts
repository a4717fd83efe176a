// @tier process
// The secret guard for agents (docs/secrets.md), through the MCP SDK's own client against
// `agent-memory mcp`: store_memory with a key in the text or in other tool arguments (title,
// tags) stores it redacted and the answer says which kinds; update_memory likewise; recall and
// get return the redacted text only; nothing the server prints on stderr holds a secret.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpProject } from '../helpers/mcpClient';
import { resultData, textOf } from '../helpers/mcpOutput';
import { FIVE, FIVE_NEEDLES, FIVE_TEXTS } from '../helpers/fakeSecrets';

test('MCP: store_memory and update_memory redact keys in any argument and say so; recall returns none', { timeout: 180_000 }, async () => {
  const { transport } = mcpProject('am-mcp-secrets-');
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'agent-memory-test', version: '1.0.0' });
  await client.connect(transport);
  const seen: string[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    seen.push(JSON.stringify(r));
    return r;
  };
  try {
    const answers: string[] = [];
    for (const content of FIVE_TEXTS) answers.push(textOf(await call('store_memory', { content })));
    for (const a of answers) assert.match(a, /Removed before saving: .+, replaced by \[redacted: …\] so it is never stored\./);
    assert.match(answers[4]!, /Removed before saving: a private key,/);

    const r = await call('store_memory', {
      content: 'The release bot tags every build that passes the nightly suite.',
      title: `Release bot ${FIVE.githubToken}`,
      tags: ['release', FIVE.openaiKey],
    });
    const data = resultData<{ id: string; redacted: string[] }>(r);
    assert.deepEqual(data.redacted, ['github_token', 'openai_key']);
    const updated = await call('update_memory', { id: data.id, content: `The release bot authenticates with ${FIVE.awsAccessKey}.` });
    assert.match(textOf(updated), /^Memory [0-9a-f-]{36} updated to version 2\. Removed before saving: an AWS access key,/);
    assert.deepEqual(resultData<{ redacted: string[] }>(updated).redacted, ['aws_access_key']);

    const got = resultData<{ title: string; tags: string[]; content: string }>(await call('get_memory', { id: data.id }));
    assert.equal(got.title, 'Release bot [redacted: GitHub token]');
    assert.equal(got.content, 'The release bot authenticates with [redacted: AWS access key].');
    assert.ok(got.tags.includes('release'));
    const recalled = textOf(await call('recall_memories', { query: 'GitHub token CI bot pushes release bot' }));
    assert.match(recalled, /\[redacted: GitHub token\]/);
    await call('memory_history', { id: data.id });
    const all = seen.join('\n');
    // The agent's own arguments aside, nothing the server answered holds a secret.
    for (const n of FIVE_NEEDLES) assert.ok(!all.includes(n), `answered ${n}`);
  } finally {
    await client.close();
  }
  for (const n of FIVE_NEEDLES) assert.ok(!stderr.includes(n), `printed ${n}`);
});
