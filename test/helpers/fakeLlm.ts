/**
 * A scripted model on 127.0.0.1 for driving real agent clients (test/agents): it speaks the
 * OpenAI chat completions API (Continue's `cn`, Copilot CLI's own provider), Anthropic's messages
 * API (Claude Code) and Google's Gemini API (Gemini CLI),
 * streamed or not. When a request offers a tool whose name ends with `toolSuffix` and carries no
 * tool result yet, it asks for that tool with `toolArgs`; once the result comes back it records
 * the result's text (`toolResults`) and answers "done". Anything else gets a short text answer.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLlm {
  url: string;
  /** Text of every tool result the client sent back. */
  toolResults: string[];
  /** Paths of every request, in order. */
  requests: string[];
  /** The tool names each request offered. */
  offered: string[][];
  close(): Promise<void>;
}

type Json = Record<string, any>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Json) => (typeof c === 'string' ? c : (c.text ?? textOf(c.content)))).join('\n');
  return '';
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events)
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
}

function openAi(body: Json, res: http.ServerResponse, llm: FakeLlm, suffix: string, args: Json): void {
  const messages = (body.messages ?? []) as Json[];
  const results = messages.filter((m) => m.role === 'tool');
  const tool = ((body.tools ?? []) as Json[]).find((t) => String(t.function?.name ?? '').endsWith(suffix));
  for (const r of results) llm.toolResults.push(textOf(r.content));
  const call =
    tool && results.length === 0
      ? { id: 'call_1', type: 'function', function: { name: tool.function.name, arguments: JSON.stringify(args) } }
      : undefined;
  const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: 'done' };
  const finish = call ? 'tool_calls' : 'stop';
  const base = { id: 'chatcmpl-1', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake' };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    return;
  }
  const chunk = (delta: Json, finish_reason: string | null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason }],
  });
  const delta = call ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] } : { role: 'assistant', content: 'done' };
  sse(res, [{ data: chunk(delta, null) }, { data: chunk({}, finish) }, { data: '[DONE]' }]);
}

function anthropic(body: Json, res: http.ServerResponse, llm: FakeLlm, suffix: string, args: Json): void {
  const messages = (body.messages ?? []) as Json[];
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).filter((c) => c.type === 'tool_result');
  const tool = ((body.tools ?? []) as Json[]).find((t) => String(t.name ?? '').endsWith(suffix));
  for (const r of results) llm.toolResults.push(textOf(r.content));
  const use = tool && results.length === 0 ? { type: 'tool_use', id: 'toolu_1', name: tool.name as string, input: args } : undefined;
  const content = use ? [use] : [{ type: 'text', text: 'done' }];
  const stop = use ? 'tool_use' : 'end_turn';
  const msg = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'fake',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...msg, content, stop_reason: stop }));
    return;
  }
  const block = use
    ? [
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { ...use, input: {} } } },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(args) } },
        },
      ]
    : [
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } } },
      ];
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { ...msg, content: [], stop_reason: null } } },
    ...block,
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

/** Google's Gemini API (Gemini CLI): generateContent, or streamGenerateContent with ?alt=sse. */
function gemini(request: { url: string; body: Json }, res: http.ServerResponse, llm: FakeLlm, suffix: string, args: Json): void {
  const { url, body } = request;
  const parts = ((body.contents ?? []) as Json[]).flatMap((c) => (c.parts ?? []) as Json[]);
  const results = parts.filter((p) => p.functionResponse);
  for (const r of results) llm.toolResults.push(JSON.stringify(r.functionResponse.response ?? {}));
  const tool = geminiTools(body).find((n) => n.endsWith(suffix));
  const part = tool && results.length === 0 ? { functionCall: { name: tool, args } } : { text: 'done' };
  const answer = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  };
  if (url.includes('alt=sse')) return sse(res, [{ data: answer }]);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(answer));
}

const geminiTools = (body: Json): string[] =>
  ((body.tools ?? []) as Json[]).flatMap((t) => ((t.functionDeclarations ?? []) as Json[]).map((f) => String(f.name)));

function parseBody(raw: string): Json {
  try {
    return raw ? (JSON.parse(raw) as Json) : {};
  } catch {
    return {};
  }
}

/** Starts the fake model; the client asks for the tool ending with `toolSuffix` with `toolArgs`. */
export async function startFakeLlm(toolSuffix: string, toolArgs: Json): Promise<FakeLlm> {
  const llm: FakeLlm = { url: '', toolResults: [], requests: [], offered: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      const url = req.url ?? '';
      llm.requests.push(`${req.method} ${url}`);
      const body = parseBody(raw);
      const gem = /\/models\/[^/]+:(stream)?generateContent/i.test(url);
      llm.offered.push(gem ? geminiTools(body) : ((body.tools ?? []) as Json[]).map((t) => String(t.name ?? t.function?.name ?? t.type)));
      if (req.method === 'POST' && gem) return gemini({ url, body }, res, llm, toolSuffix, toolArgs);
      if (req.method === 'POST' && url.includes('/chat/completions')) return openAi(body, res, llm, toolSuffix, toolArgs);
      if (req.method === 'POST' && /\/v1\/messages(\?|$)/.test(url)) return anthropic(body, res, llm, toolSuffix, toolArgs);
      if (url.includes('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake', object: 'model' }] }));
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'not_found', message: `fake model: no ${url}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  llm.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  llm.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return llm;
}
