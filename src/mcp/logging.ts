/**
 * A logging message (`notifications/message`) to the client of one MCP server, at the level that
 * client set with `logging/setLevel`. The SDK keeps the level per transport session id (over HTTP,
 * the `mcp-session-id`; over stdio, none) and filters by the session id it is given: a message
 * sent without it is filtered by no level at all over HTTP. Each McpServer here serves one
 * session (httpServer.ts), so its transport's session id is the client's.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';

export function sendLog(server: McpServer, params: LoggingMessageNotification['params']): Promise<void> {
  // A client that went away, or one that takes no logging messages, misses nothing it needs.
  return server.server.sendLoggingMessage(params, server.server.transport?.sessionId).catch(() => undefined);
}
