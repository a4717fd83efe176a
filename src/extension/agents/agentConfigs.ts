/**
 * Where each agent's MCP configuration lives and what our entry in it holds (README
 * "Other agents (MCP)"). Pure: setupAgents.ts shows or writes it (agentConfigFiles.ts).
 *
 * Every entry starts the launcher (agentLauncher.ts), never the extension's own folder, which
 * changes with each update. Two kinds of file:
 *
 * - **For you, in every project** (the default): the agent's user-level file — Claude Code's
 *   `~/.claude.json` (what `claude mcp add --scope user` writes), `~/.cursor/mcp.json`,
 *   `~/.codex/config.toml`, `~/.continue/config.yaml` (the file both Continue's `cn` and its
 *   editor extension load; `cn` ignores `.continue/mcpServers/` block files). They name the
 *   launcher by its absolute path and pass `--home <store home>`: Codex passes only a few
 *   environment variables to its servers, so AGENT_MEMORY_HOME would not reach them. The
 *   project is the folder the agent runs in (Claude Code, Codex and `cn` start servers there);
 *   Cursor gets `--workspace ${workspaceFolder}`.
 * - **For everyone on this project** (Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`,
 *   shared through git): no path of one person. The launcher is named through each person's
 *   home, which the agent expands (`${HOME}` in Claude Code, `${userHome}` in Cursor); it
 *   knows its own store home. A teammate without the extension sees a server that fails to
 *   start, nothing else. Offered only when the store home is the default `~/.agent-memory`
 *   (the path the file names) and not on Windows.
 *
 * Cline keeps its servers in its own settings file, which is shown, not written.
 */
import * as path from 'node:path';
import { claudeHookGroups } from './claudeHooks';

export type AgentName =
  'Claude Code' | 'Cursor' | 'Codex' | 'Continue' | 'Gemini CLI' | 'GitHub Copilot CLI' | 'Windsurf' | 'Zed' | 'Cline';
export type ConfigScope = 'user' | 'project';

export interface AgentTarget {
  agent: AgentName;
  scope: ConfigScope;
  /** Absolute path of the file. */
  file: string;
  /** claude-hooks: Claude Code's hooks in its settings.json (claudeHooks.ts), `entry` their groups by event. */
  format: 'json' | 'toml' | 'yaml' | 'claude-hooks';
  /** json / toml: where the entry goes (["mcpServers", "agent-memory"]); yaml: the list and the item's name. */
  keyPath: string[];
  /** Our server's entry as the file holds it. */
  entry: Record<string, unknown>;
  /** Written by the setup; false: shown only (the file belongs to another extension). */
  writable: boolean;
  /** The mode of the file when the setup creates it (~/.claude.json holds Claude Code's state: 0600). */
  newFileMode?: number;
  /** yaml: the top-level keys of a file the setup creates. */
  newFileHeader?: Record<string, unknown>;
  /** What to know about this file (shown with it). */
  note?: string;
  /** How the setup names this target when an agent has more than one (default: the agent's name). */
  label?: string;
  /** What to know when the setup had to create the file (said when it is written). */
  createdNote?: string;
}

export const SERVER_KEY = 'agent-memory';

/** The launcher's path relative to the home folder when the store home is the default (~/.agent-memory). */
export const DEFAULT_LAUNCHER_FROM_HOME = '.agent-memory/bin/agent-memory';

export interface AgentSetupInput {
  /** Absolute path of the launcher (agentLauncher.ts launcherPath). */
  launcher: string;
  /** The store home the launcher serves. */
  home: string;
  /** The person's home folder (os.homedir()). */
  userHome: string;
  /** The project folder (absent: no folder open: no project files). */
  workspace?: string;
  /**
   * Environment variables that move the agents' own folders: CLAUDE_CONFIG_DIR, CODEX_HOME,
   * CONTINUE_GLOBAL_DIR, COPILOT_HOME, XDG_CONFIG_HOME.
   */
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  /** Cline's settings file (in VS Code's storage of the Cline extension), when known. */
  clineSettings?: string;
}

/** The command and arguments that start the launcher with `args` (Windows runs a .cmd through cmd.exe). */
function launch(input: AgentSetupInput, args: string[]): { command: string; args: string[] } {
  if ((input.platform ?? process.platform) === 'win32') return { command: 'cmd', args: ['/c', input.launcher, ...args] };
  return { command: input.launcher, args };
}

/** True when project files can name the launcher through each person's home. */
export function projectFilesOffered(input: AgentSetupInput): boolean {
  const platform = input.platform ?? process.platform;
  return platform !== 'win32' && !!input.workspace && path.resolve(input.home) === path.join(input.userHome, '.agent-memory');
}

function userTargets(input: AgentSetupInput): AgentTarget[] {
  const env = input.env ?? {};
  const mcp = ['mcp', '--home', input.home];
  const claudeFile = env.CLAUDE_CONFIG_DIR ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(input.userHome, '.claude.json');
  return [
    {
      agent: 'Claude Code',
      scope: 'user',
      file: claudeFile,
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: { type: 'stdio', ...launch(input, mcp), env: {} },
      writable: true,
      newFileMode: 0o600,
      note: 'The same entry as `claude mcp add --scope user`. Claude Code starts it in the folder it runs in: that project’s memory.',
    },
    {
      agent: 'Claude Code',
      scope: 'user',
      file: path.join(env.CLAUDE_CONFIG_DIR ?? path.join(input.userHome, '.claude'), 'settings.json'),
      format: 'claude-hooks',
      keyPath: ['hooks'],
      entry: claudeHookGroups(input.launcher, input.home),
      writable: (input.platform ?? process.platform) !== 'win32',
      label: 'Claude Code hooks',
      note: 'Context that arrives by itself: at the start of a session the project briefing with the last session’s summary and scratchpad, on each prompt the memories relevant to it (nothing when none is), and at the end of each turn the turn is logged as a session. Your other hooks stay.',
    },
    {
      agent: 'Cursor',
      scope: 'user',
      file: path.join(input.userHome, '.cursor', 'mcp.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: launch(input, [...mcp, '--workspace', '${workspaceFolder}']),
      writable: true,
      note: 'Cursor replaces `${workspaceFolder}` with the folder it has open.',
    },
    {
      agent: 'Codex',
      scope: 'user',
      file: path.join(env.CODEX_HOME ?? path.join(input.userHome, '.codex'), 'config.toml'),
      format: 'toml',
      keyPath: ['mcp_servers', SERVER_KEY],
      entry: launch(input, mcp),
      writable: true,
      note: 'Codex starts it in the folder it runs in: that project’s memory.',
    },
    {
      agent: 'Continue',
      scope: 'user',
      file: path.join(env.CONTINUE_GLOBAL_DIR ?? path.join(input.userHome, '.continue'), 'config.yaml'),
      format: 'yaml',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: { name: SERVER_KEY, ...launch(input, mcp) },
      writable: true,
      newFileHeader: { name: 'Local Config', version: '1.0.0', schema: 'v1' },
      createdNote:
        'Continue had no config.yaml: the new one holds this server only, and `cn` now reads it instead of its default configuration. Add your models to it.',
      note: 'Read by the `cn` command line and by the Continue extension (`cn` does not read `.continue/mcpServers/`). They start it in the folder they run in or have open: that project’s memory.',
    },
    ...moreUserTargets(input, mcp),
  ];
}

/**
 * Gemini CLI, GitHub Copilot CLI, Windsurf and Zed, each in the format its documentation gives.
 * The command-line agents start servers in the folder they run in; Windsurf and Zed may start
 * them elsewhere, so their entries name this project with --workspace (like Cline's).
 */
function moreUserTargets(input: AgentSetupInput, mcp: string[]): AgentTarget[] {
  const env = input.env ?? {};
  const here = input.workspace ? ['--workspace', input.workspace] : [];
  const thisProject = 'It names this project with --workspace: the same entry in every project reaches this project’s memory.';
  return [
    {
      agent: 'Gemini CLI',
      scope: 'user',
      file: path.join(input.userHome, '.gemini', 'settings.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: launch(input, mcp),
      writable: true,
      note:
        'Gemini CLI starts it in the folder it runs in: that project’s memory, once you trust the folder (it starts no MCP server ' +
        'in an untrusted one). `/mcp` in Gemini CLI lists it.',
    },
    {
      agent: 'GitHub Copilot CLI',
      scope: 'user',
      // Its folder moves with COPILOT_HOME (`copilot help environment`); it does not follow XDG_CONFIG_HOME.
      file: path.join(env.COPILOT_HOME ?? path.join(input.userHome, '.copilot'), 'mcp-config.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: { type: 'local', ...launch(input, mcp), env: {}, tools: ['*'] },
      writable: true,
      note: 'The file `/mcp add` in the `copilot` command line writes. It starts it in the folder it runs in: that project’s memory.',
    },
    {
      agent: 'Windsurf',
      scope: 'user',
      file: path.join(input.userHome, '.codeium', 'windsurf', 'mcp_config.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: launch(input, [...mcp, ...here]),
      writable: true,
      note: `Windsurf reads it on its next start (or Refresh in its MCP panel). ${thisProject}`,
    },
    {
      agent: 'Zed',
      scope: 'user',
      file: path.join(env.XDG_CONFIG_HOME ?? path.join(input.userHome, '.config'), 'zed', 'settings.json'),
      format: 'json',
      keyPath: ['context_servers', SERVER_KEY],
      entry: { source: 'custom', ...launch(input, [...mcp, ...here]), env: {} },
      writable: true,
      note: `Zed’s settings keep MCP servers under context_servers; your other settings and comments stay. ${thisProject}`,
    },
  ];
}

function projectTargets(input: AgentSetupInput): AgentTarget[] {
  if (!projectFilesOffered(input) || !input.workspace) return [];
  const shared = 'Shared through git: it names no path of yours, each person’s own launcher is found through their home folder.';
  return [
    {
      agent: 'Claude Code',
      scope: 'project',
      file: path.join(input.workspace, '.mcp.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: { command: `\${HOME}/${DEFAULT_LAUNCHER_FROM_HOME}`, args: ['mcp'] },
      writable: true,
      note: `${shared} Claude Code asks each person once before starting it.`,
    },
    {
      agent: 'Cursor',
      scope: 'project',
      file: path.join(input.workspace, '.cursor', 'mcp.json'),
      format: 'json',
      keyPath: ['mcpServers', SERVER_KEY],
      entry: { command: `\${userHome}/${DEFAULT_LAUNCHER_FROM_HOME}`, args: ['mcp', '--workspace', '${workspaceFolder}'] },
      writable: true,
      note: shared,
    },
  ];
}

function clineTarget(input: AgentSetupInput): AgentTarget {
  return {
    agent: 'Cline',
    scope: 'user',
    file: input.clineSettings ?? 'cline_mcp_settings.json',
    format: 'json',
    keyPath: ['mcpServers', SERVER_KEY],
    entry: {
      type: 'stdio',
      ...launch(input, ['mcp', '--home', input.home, ...(input.workspace ? ['--workspace', input.workspace] : [])]),
      disabled: false,
    },
    writable: false,
    note: 'Open it from Cline: MCP Servers → Configure MCP Servers, and add the entry to its mcpServers. Cline’s list is the same in every project: this entry reaches this project’s memory.',
  };
}

/** Every target: the user-level files, the project files (when offered), then Cline's. */
export function agentTargets(input: AgentSetupInput): AgentTarget[] {
  return [...userTargets(input), ...projectTargets(input), clineTarget(input)];
}

/**
 * True for an entry an earlier version wrote: it starts the CLI inside the extension's own
 * folder (`…/agent-memory-0.1.0/dist/cli.js`), which the next update removes.
 */
export function namesExtensionFolder(entry: unknown): boolean {
  if (!entry || typeof entry !== 'object') return false;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  const words = [command, ...(Array.isArray(args) ? (args as unknown[]) : [])].filter((w): w is string => typeof w === 'string');
  return words.some((w) => /[\\/]dist[\\/]cli\.js$/.test(w));
}

/** The person's home shown as ~ (a file's path in messages). */
export function tildePath(file: string, userHome: string): string {
  return file === userHome || file.startsWith(userHome + path.sep) ? `~${file.slice(userHome.length)}` : file;
}

/** What the entry looks like in the file's own format (the "show" document). */
export function entryText(t: AgentTarget): string {
  if (t.format === 'toml') {
    const args = (t.entry.args as string[]).map((a) => JSON.stringify(a)).join(', ');
    return `[${t.keyPath.join('.')}]\ncommand = ${JSON.stringify(t.entry.command)}\nargs = [${args}]`;
  }
  if (t.format === 'claude-hooks') {
    const hooks = Object.fromEntries(Object.entries(t.entry).map(([e, g]) => [e, [g]]));
    return JSON.stringify({ hooks }, null, 2);
  }
  if (t.format === 'yaml') {
    const args = (t.entry.args as string[]).map((a) => `      - ${JSON.stringify(a)}`);
    return ['mcpServers:', `  - name: ${SERVER_KEY}`, `    command: ${JSON.stringify(t.entry.command)}`, '    args:', ...args].join('\n');
  }
  // The entry under its key path ({ mcpServers: { agent-memory: … } }, Zed's context_servers).
  const nested = t.keyPath.reduceRight<unknown>((inner, key) => ({ [key]: inner }), t.entry);
  return JSON.stringify(nested, null, 2);
}

/** All configurations as one Markdown document (the "show" form). */
export function agentConfigsMarkdown(targets: AgentTarget[], input: AgentSetupInput): string {
  const parts = targets.map((t) => {
    const where = t.scope === 'project' ? 'for everyone on this project' : 'for you, in every project';
    return [
      `## ${t.label ?? t.agent} — ${where}`,
      '',
      `File: \`${tildePath(t.file, input.userHome)}\`${t.writable ? '' : ' (add the entry yourself)'}`,
      '',
      `\`\`\`${t.format === 'claude-hooks' ? 'json' : t.format}`,
      entryText(t),
      '```',
      ...(t.note ? ['', t.note] : []),
      '',
    ].join('\n');
  });
  const project = projectFilesOffered(input)
    ? []
    : [
        'Project files (`.mcp.json`, `.cursor/mcp.json`) are not offered: they name the launcher through each person’s home folder as `~/.agent-memory/bin/agent-memory`, and your store folder is elsewhere (or this is Windows, or no folder is open).',
        '',
      ];
  return [
    '# Connect other agents to Agent Memory',
    '',
    `Each agent starts \`${tildePath(input.launcher, input.userHome)}\`, a launcher the extension keeps up to date each time VS Code starts it: it runs the installed extension’s \`agent-memory mcp\` with the Node.js of VS Code (or \`node\` on the PATH), on the memory in \`${tildePath(input.home, input.userHome)}\`.`,
    '',
    ...project,
    ...parts,
  ].join('\n');
}
