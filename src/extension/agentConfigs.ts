/**
 * The MCP configuration other agents need to reach this project's memory through
 * `agent-memory mcp` (README "Connecting other agents"). Pure: the command in setupAgents.ts
 * shows or writes it. Every entry runs the installed CLI by its absolute path with Node
 * (20+, on the PATH), in the project folder so the project resolves as in VS Code.
 */
import * as path from 'node:path';

export type AgentName = 'Claude Code' | 'Cursor' | 'Codex' | 'Continue' | 'Cline';

export interface AgentConfig {
  agent: AgentName;
  /** Where the configuration goes (absolute, or starting with ~ for the user's home). */
  file: string;
  /** The file's content for this server alone (JSON / TOML / YAML). */
  content: string;
  /** JSON files holding an `mcpServers` object: setupAgents.ts can merge the entry in. */
  mergeableJson: boolean;
  /** A one-line alternative (Claude Code's own command), or a note. */
  note?: string;
}

export const SERVER_KEY = 'agent-memory';

export interface AgentSetupInput {
  /** Absolute path of dist/cli.js in the installed extension. */
  cliPath: string;
  /** The project folder (absent: no folder open; the agents' working directory is used). */
  workspace?: string;
  /** Node's command (default "node" on the PATH). */
  node?: string;
}

function argsFor(input: AgentSetupInput): string[] {
  return [input.cliPath, 'mcp', ...(input.workspace ? ['--workspace', input.workspace] : [])];
}

function jsonServers(input: AgentSetupInput, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ mcpServers: { [SERVER_KEY]: { command: input.node ?? 'node', args: argsFor(input), ...extra } } }, null, 2);
}

function tomlString(s: string): string {
  return JSON.stringify(s); // TOML basic strings use JSON's escapes for these characters
}

export function agentConfigs(input: AgentSetupInput): AgentConfig[] {
  const node = input.node ?? 'node';
  const args = argsFor(input);
  const inProject = (rel: string) => (input.workspace ? path.join(input.workspace, rel) : rel);
  return [
    {
      agent: 'Claude Code',
      file: inProject('.mcp.json'),
      content: jsonServers(input),
      mergeableJson: true,
      note: `or: claude mcp add ${SERVER_KEY} -- ${[node, ...args].map(shellQuote).join(' ')}`,
    },
    { agent: 'Cursor', file: inProject(path.join('.cursor', 'mcp.json')), content: jsonServers(input), mergeableJson: true },
    {
      agent: 'Codex',
      file: path.join('~', '.codex', 'config.toml'),
      mergeableJson: false,
      content: `[mcp_servers.${SERVER_KEY}]\ncommand = ${tomlString(node)}\nargs = [${args.map(tomlString).join(', ')}]\n`,
      note: 'append to the file (one [mcp_servers.agent-memory] table)',
    },
    {
      agent: 'Continue',
      file: inProject(path.join('.continue', 'mcpServers', `${SERVER_KEY}.yaml`)),
      mergeableJson: false,
      content: [
        'name: Agent Memory',
        'version: 0.0.1',
        'schema: v1',
        'mcpServers:',
        `  - name: ${SERVER_KEY}`,
        `    command: ${JSON.stringify(node)}`,
        '    args:',
        ...args.map((a) => `      - ${JSON.stringify(a)}`),
        '',
      ].join('\n'),
    },
    {
      agent: 'Cline',
      file: 'cline_mcp_settings.json (Cline: MCP Servers → Configure MCP Servers)',
      content: jsonServers(input, { disabled: false }),
      mergeableJson: false,
      note: 'merge the agent-memory entry into the mcpServers object Cline opens',
    },
  ];
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Merges this server's entry into an existing `{ mcpServers: {…} }` JSON text (other servers kept). */
export function mergeMcpJson(existing: string | undefined, entry: string): string {
  const add = (JSON.parse(entry) as { mcpServers: Record<string, unknown> }).mcpServers;
  const base = existing?.trim() ? (JSON.parse(existing) as Record<string, unknown>) : {};
  if (typeof base !== 'object' || base === null || Array.isArray(base)) throw new Error('the file is not a JSON object');
  const servers = (base.mcpServers && typeof base.mcpServers === 'object' ? base.mcpServers : {}) as Record<string, unknown>;
  return `${JSON.stringify({ ...base, mcpServers: { ...servers, ...add } }, null, 2)}\n`;
}

/** All configurations as one Markdown document (the "print" form). */
export function agentConfigsMarkdown(configs: AgentConfig[]): string {
  const parts = configs.map((c) => {
    const lang = c.file.endsWith('.toml') ? 'toml' : c.file.endsWith('.yaml') ? 'yaml' : 'json';
    return [
      `## ${c.agent}`,
      '',
      `File: \`${c.file}\``,
      '',
      `\`\`\`${lang}`,
      c.content.trimEnd(),
      '```',
      ...(c.note ? ['', c.note] : []),
      '',
    ].join('\n');
  });
  return [
    '# Connect other agents to Agent Memory',
    '',
    'Each agent starts `agent-memory mcp` (Node 20+ must be on the PATH).',
    '',
    ...parts,
  ].join('\n');
}
