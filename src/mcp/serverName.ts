/** The MCP server's name, as agents and VS Code list it (no SDK import: the extension uses it too). */
export const MCP_SERVER_NAME = 'agent-memory';
