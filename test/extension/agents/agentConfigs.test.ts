// What "Set Up Other Agents…" writes for each agent (issue 19, item 6): every entry starts the
// launcher in the store home, never the extension's versioned folder; user-level files pass the
// store home as --home; project files shared through git name no path of this person.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  agentConfigsMarkdown,
  agentTargets,
  namesExtensionFolder,
  projectFilesOffered,
  type AgentSetupInput,
} from '../../../src/extension/agents/agentConfigs';

const input: AgentSetupInput = {
  launcher: '/home/dev/.agent-memory/bin/agent-memory',
  home: '/home/dev/.agent-memory',
  userHome: '/home/dev',
  workspace: '/home/dev/widgets',
  platform: 'linux',
  env: {},
};

const VERSIONED = /agent-memory-\d|dist\/cli\.js/;

test('user-level entries start the launcher with --home; none names the extension folder', () => {
  const targets = agentTargets(input);
  // The MCP server entries (the Claude Code hooks target is claudeHooks.test.ts's).
  const user = targets.filter((t) => t.scope === 'user' && t.writable && t.format !== 'claude-hooks');
  assert.deepEqual(
    user.map((t) => [t.agent, t.file]),
    [
      ['Claude Code', '/home/dev/.claude.json'],
      ['Cursor', '/home/dev/.cursor/mcp.json'],
      ['Codex', '/home/dev/.codex/config.toml'],
      ['Continue', '/home/dev/.continue/config.yaml'],
      ['Gemini CLI', '/home/dev/.gemini/settings.json'],
      ['GitHub Copilot CLI', '/home/dev/.copilot/mcp-config.json'],
      ['Windsurf', '/home/dev/.codeium/windsurf/mcp_config.json'],
      ['Zed', '/home/dev/.config/zed/settings.json'],
    ],
  );
  for (const t of targets) {
    assert.doesNotMatch(JSON.stringify(t.entry), VERSIONED, `${t.agent} (${t.scope}) names no versioned folder`);
  }
  for (const t of user) {
    assert.equal(t.entry.command, input.launcher, `${t.agent}: the launcher`);
    assert.deepEqual((t.entry.args as string[]).slice(0, 3), ['mcp', '--home', input.home], `${t.agent}: --home`);
  }
  assert.deepEqual(targets.find((t) => t.agent === 'Cursor' && t.scope === 'user')!.entry.args, [
    'mcp',
    '--home',
    input.home,
    '--workspace',
    '${workspaceFolder}',
  ]);
  assert.deepEqual(targets.find((t) => t.agent === 'Continue')!.entry, {
    name: 'agent-memory',
    command: input.launcher,
    args: ['mcp', '--home', input.home],
  });
  const cline = targets.find((t) => t.agent === 'Cline')!;
  assert.equal(cline.writable, false);
  assert.ok((cline.entry.args as string[]).includes('/home/dev/widgets'), 'Cline runs outside the project: --workspace');
});

test('project files name no path of this person: the launcher is found through each home folder', () => {
  const project = agentTargets(input).filter((t) => t.scope === 'project');
  assert.deepEqual(
    project.map((t) => [t.agent, t.file, t.entry]),
    [
      ['Claude Code', '/home/dev/widgets/.mcp.json', { command: '${HOME}/.agent-memory/bin/agent-memory', args: ['mcp'] }],
      [
        'Cursor',
        '/home/dev/widgets/.cursor/mcp.json',
        { command: '${userHome}/.agent-memory/bin/agent-memory', args: ['mcp', '--workspace', '${workspaceFolder}'] },
      ],
    ],
  );
  for (const t of project) assert.doesNotMatch(JSON.stringify(t.entry), /\/home\/dev/);
  // A store elsewhere, Windows, or no folder: the path those files name would be wrong: not offered.
  assert.equal(projectFilesOffered({ ...input, home: '/data/memory', launcher: '/data/memory/bin/agent-memory' }), false);
  assert.equal(agentTargets({ ...input, home: '/data/memory' }).filter((t) => t.scope === 'project').length, 0);
  assert.equal(projectFilesOffered({ ...input, platform: 'win32' }), false);
  assert.equal(projectFilesOffered({ ...input, workspace: undefined }), false);
});

test("the agents' own folder variables move their files; Windows starts the .cmd launcher through cmd", () => {
  const moved = agentTargets({
    ...input,
    env: { CLAUDE_CONFIG_DIR: '/cfg/claude', CODEX_HOME: '/cfg/codex', CONTINUE_GLOBAL_DIR: '/cfg/cont' },
  });
  assert.equal(moved.find((t) => t.agent === 'Claude Code')!.file, '/cfg/claude/.claude.json');
  assert.equal(moved.find((t) => t.agent === 'Codex')!.file, '/cfg/codex/config.toml');
  assert.equal(moved.find((t) => t.agent === 'Continue')!.file, '/cfg/cont/config.yaml');
  const win = agentTargets({ ...input, platform: 'win32', launcher: 'C:\\Users\\dev\\.agent-memory\\bin\\agent-memory.cmd' });
  const codex = win.find((t) => t.agent === 'Codex')!;
  assert.equal(codex.entry.command, 'cmd');
  assert.deepEqual((codex.entry.args as string[]).slice(0, 3), ['/c', 'C:\\Users\\dev\\.agent-memory\\bin\\agent-memory.cmd', 'mcp']);
});

test('the shown document explains the launcher and gives each file in its own format', () => {
  const md = agentConfigsMarkdown(agentTargets(input), input);
  assert.match(md, /starts `~\/\.agent-memory\/bin\/agent-memory`, a launcher the extension keeps up to date/);
  assert.match(md, /## Codex — for you, in every project\n\nFile: `~\/\.codex\/config\.toml`\n\n```toml\n\[mcp_servers\.agent-memory\]/);
  assert.match(md, /## Continue — for you[\s\S]*```yaml\nmcpServers:\n {2}- name: agent-memory/);
  assert.match(md, /## Claude Code — for everyone on this project/);
  assert.match(md, /## Cline[\s\S]*\(add the entry yourself\)/);
  assert.doesNotMatch(agentConfigsMarkdown(agentTargets({ ...input, home: '/data/m' }), { ...input, home: '/data/m' }), /for everyone/);
});

test('an entry of an earlier version (the CLI inside the extension folder) is recognised; ours is not', () => {
  assert.equal(
    namesExtensionFolder({ command: 'node', args: ['/home/dev/.vscode/extensions/agent-memory.agent-memory-0.1.0/dist/cli.js', 'mcp'] }),
    true,
  );
  assert.equal(namesExtensionFolder({ command: 'node', args: ['C:\\ext\\agent-memory-0.1.0\\dist\\cli.js', 'mcp'] }), true);
  for (const t of agentTargets(input)) assert.equal(namesExtensionFolder(t.entry), false, `${t.agent} (${t.scope})`);
  assert.equal(namesExtensionFolder('node'), false);
});

test('Gemini CLI, Copilot CLI, Windsurf and Zed: each entry in its documented shape; Windsurf and Zed name the project', () => {
  const targets = agentTargets(input);
  const of = (agent: string) => targets.find((t) => t.agent === agent)!;
  assert.deepEqual(
    [of('Gemini CLI').keyPath, of('Gemini CLI').entry],
    [['mcpServers', 'agent-memory'], { command: input.launcher, args: ['mcp', '--home', input.home] }],
  );
  // The real client starts no MCP server in a folder its user has not trusted (test/agents): the note says so.
  assert.match(of('Gemini CLI').note ?? '', /once you trust the folder/);
  assert.deepEqual(of('GitHub Copilot CLI').entry, {
    type: 'local',
    command: input.launcher,
    args: ['mcp', '--home', input.home],
    env: {},
    tools: ['*'],
  });
  assert.deepEqual(of('Windsurf').entry.args, ['mcp', '--home', input.home, '--workspace', '/home/dev/widgets']);
  assert.deepEqual(
    [of('Zed').keyPath, of('Zed').entry],
    [
      ['context_servers', 'agent-memory'],
      { source: 'custom', command: input.launcher, args: ['mcp', '--home', input.home, '--workspace', '/home/dev/widgets'], env: {} },
    ],
  );
  const moved = agentTargets({ ...input, env: { XDG_CONFIG_HOME: '/home/dev/.xdg', COPILOT_HOME: '/home/dev/.cop' } });
  assert.equal(moved.find((t) => t.agent === 'Zed')!.file, '/home/dev/.xdg/zed/settings.json');
  // Copilot CLI moves with COPILOT_HOME only: with XDG_CONFIG_HOME alone it still reads ~/.copilot (checked with the real client).
  assert.equal(moved.find((t) => t.agent === 'GitHub Copilot CLI')!.file, '/home/dev/.cop/mcp-config.json');
  const xdgOnly = agentTargets({ ...input, env: { XDG_CONFIG_HOME: '/home/dev/.xdg' } });
  assert.equal(xdgOnly.find((t) => t.agent === 'GitHub Copilot CLI')!.file, '/home/dev/.copilot/mcp-config.json');
  const shown = agentConfigsMarkdown(targets, input);
  assert.match(shown, /## Zed — for you, in every project[\s\S]*"context_servers": \{\n\s+"agent-memory": \{\n\s+"source": "custom"/);
});
