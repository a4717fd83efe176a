// The configuration "Set Up Other Agents…" shows or writes: each agent gets the absolute CLI
// path and the project folder, in its own format; merging keeps the other servers of a file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { agentConfigs, agentConfigsMarkdown, mergeMcpJson } from '../../src/extension/agentConfigs';

const input = { cliPath: '/opt/vscode/extensions/agent-memory-0.1.0/dist/cli.js', workspace: '/home/dev/widgets' };

test('every agent gets the absolute CLI path with `mcp` and the project folder', () => {
  const configs = agentConfigs(input);
  assert.deepEqual(
    configs.map((c) => c.agent),
    ['Claude Code', 'Cursor', 'Codex', 'Continue', 'Cline'],
  );
  for (const c of configs) {
    assert.ok(c.content.includes(input.cliPath), `${c.agent}: the CLI path`);
    assert.ok(c.content.includes('"mcp"') || c.content.includes("'mcp'"), `${c.agent}: the mcp command`);
    assert.ok(c.content.includes(input.workspace), `${c.agent}: the workspace`);
  }
  const claude = JSON.parse(configs[0]!.content) as { mcpServers: Record<string, { command: string; args: string[] }> };
  assert.deepEqual(claude.mcpServers['agent-memory'], { command: 'node', args: [input.cliPath, 'mcp', '--workspace', input.workspace] });
  assert.equal(configs[0]!.file, '/home/dev/widgets/.mcp.json');
  assert.equal(configs[1]!.file, '/home/dev/widgets/.cursor/mcp.json');
  assert.match(
    configs[2]!.content,
    /^\[mcp_servers\.agent-memory\]\ncommand = "node"\nargs = \["\/opt\/.*cli\.js", "mcp", "--workspace", "\/home\/dev\/widgets"\]\n$/,
  );
  assert.match(configs[0]!.note ?? '', /^or: claude mcp add agent-memory -- node \/opt\/.*cli\.js mcp --workspace \/home\/dev\/widgets$/);
  assert.match(agentConfigsMarkdown(configs), /## Codex[\s\S]*```toml/);
});

test('merging into an existing .mcp.json keeps the other servers; a file that is not an object is refused', () => {
  const entry = agentConfigs(input)[0]!.content;
  const merged = JSON.parse(mergeMcpJson('{"mcpServers":{"github":{"command":"gh-mcp"}},"other":1}', entry)) as Record<string, any>;
  assert.deepEqual(Object.keys(merged.mcpServers).sort(), ['agent-memory', 'github']);
  assert.equal(merged.other, 1);
  assert.deepEqual(Object.keys(JSON.parse(mergeMcpJson(undefined, entry)).mcpServers), ['agent-memory']);
  assert.throws(() => mergeMcpJson('[1,2]', entry), /not a JSON object/);
  assert.throws(() => mergeMcpJson('{broken', entry));
});
