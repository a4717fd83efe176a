// The fixtures the MCP conformance suite's server scenarios call by name (its
// examples/servers/typescript/README.md, "MCP Conformance Test Server": tools test_simple_text,
// test_image_content, …, resources test://static-text, …, prompts test_simple_prompt, …), added
// to every session's server of a real `agent-memory mcp --http` by test/helpers/conformanceServer.ts
// — never to the product. They sit beside our own tools, resources and prompts, on our transport,
// guard and token, and use our own plumbing where there is one: logging through sendLog (the
// level the client set for its session), progress through progressOf (longTools.ts), a
// subscription through the change feed's subscribe handler (changes.ts).
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpExtension } from '../../src/mcp/server';
import { sendLog } from '../../src/mcp/logging';
import { progressOf } from '../../src/mcp/longTools';

// A 1×1 PNG and a minimal WAV, as the suite's reference server has them.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Schema = ElicitRequest['params'] extends infer P ? (P extends { requestedSchema: infer S } ? S : never) : never;

function contentTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Simple text content.' }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Image content.' }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Audio content.' }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'An embedded resource.' }, () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Text, image and resource.' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
      },
    ],
  }));
  server.registerTool('test_error_handling', { description: 'Always fails.' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
}

function notifyingTools(server: McpServer): void {
  server.registerTool('test_tool_with_logging', { description: 'Three info messages while it runs.', inputSchema: {} }, async () => {
    for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
      if (i) await pause(50);
      await sendLog(server, { level: 'info', logger: 'conformance', data });
    }
    return text('Tool with logging executed successfully');
  });
  server.registerTool('test_tool_with_progress', { description: 'Progress 0, 50, 100 of 100.', inputSchema: {} }, async (_a, extra) => {
    const progress = progressOf(extra);
    await progress.report(0, 100, 'Completed step 0 of 100');
    await pause(50);
    await progress.report(50, 100, 'Completed step 50 of 100');
    await pause(50);
    await progress.finish('Completed step 100 of 100', 100);
    return text(String(extra._meta?.progressToken ?? ''));
  });
}

/** SEP-1699: the server closes the call's stream mid-call; the client reconnects with Last-Event-ID and gets the answer. */
function reconnectingTool(server: McpServer): void {
  server.registerTool('test_reconnection', { description: 'Closes its stream, then answers.', inputSchema: {} }, async (_a, extra) => {
    extra.closeSSEStream?.();
    await pause(100);
    return text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
  });
}

function elicit(server: McpServer, message: string, requestedSchema: Schema) {
  return server.server.request({ method: 'elicitation/create', params: { message, requestedSchema } }, ElicitResultSchema);
}

function clientTools(server: McpServer): void {
  server.registerTool(
    'test_sampling',
    { description: 'Asks the client for a completion.', inputSchema: { prompt: z.string() } },
    async (a) => {
      const r = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: a.prompt } }],
        maxTokens: 100,
      });
      return text(`LLM response: ${r.content.type === 'text' ? r.content.text : r.content.type}`);
    },
  );
  server.registerTool('test_elicitation', { description: 'Asks the user.', inputSchema: { message: z.string() } }, async (a) => {
    const r = await elicit(server, a.message, {
      type: 'object',
      properties: { response: { type: 'string', description: "User's response" } },
      required: ['response'],
    });
    return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
  });
  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicitation with defaults.', inputSchema: {} }, async () => {
    const r = await elicit(server, 'Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    });
    return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
  });
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Elicitation with enums.', inputSchema: {} }, async () => {
    const options = ['option1', 'option2', 'option3'];
    const titled = [1, 2, 3].map((n) => ({ const: `value${n}`, title: ['First', 'Second', 'Third'][n - 1]! + ' Option' }));
    const r = await elicit(server, 'Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: options },
        titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: options },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: { anyOf: [1, 2, 3].map((n) => ({ const: `value${n}`, title: ['First', 'Second', 'Third'][n - 1]! + ' Choice' })) },
        },
      },
      required: [],
    } as Schema);
    return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
  });
}

function resources(server: McpServer, subscribable: (uri: string) => void): void {
  const one = (uri: string, mimeType: string, body: { text: string } | { blob: string }) =>
    server.registerResource(uri.slice('test://'.length), uri, { mimeType }, () => ({ contents: [{ uri, mimeType, ...body }] }));
  one('test://static-text', 'text/plain', { text: 'This is the content of the static text resource.' });
  one('test://static-binary', 'image/png', { blob: PNG });
  one('test://watched-resource', 'text/plain', { text: 'Watched resource content' });
  subscribable('test://watched-resource');
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { mimeType: 'application/json' },
    (uri, v) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id: v.id, templateTest: true, data: `Data for ID: ${String(v.id)}` }),
        },
      ],
    }),
  );
}

function prompts(server: McpServer): void {
  const user = (content: Record<string, unknown>) => ({ role: 'user' as const, content }) as never;
  server.registerPrompt('test_simple_prompt', { description: 'No arguments.' }, () => ({
    messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    { description: 'Two arguments.', argsSchema: { arg1: z.string(), arg2: z.string() } },
    (a) => ({
      messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` })],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A resource.', argsSchema: { resourceUri: z.string() } },
    (a) => ({
      messages: [
        user({
          type: 'resource',
          resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        }),
        user({ type: 'text', text: 'Please process the embedded resource above.' }),
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'An image.' }, () => ({
    messages: [user({ type: 'image', data: PNG, mimeType: 'image/png' }), user({ type: 'text', text: 'Please analyze the image above.' })],
  }));
}

export const conformanceFixtures: McpExtension = (server, hooks) => {
  contentTools(server);
  notifyingTools(server);
  reconnectingTool(server);
  clientTools(server);
  resources(server, hooks.subscribable);
  prompts(server);
};
