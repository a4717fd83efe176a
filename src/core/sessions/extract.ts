/**
 * The text of an event that is worth indexing (docs/sessions.md "Logging events"): the message's
 * content — a string, or the parts of Anthropic-style content (text, tool calls' arguments, tool
 * results) — and the arguments of OpenAI-style tool calls. What looks like binary data (control
 * characters, long base64 or hex runs, data: URLs) is stored with the event but not indexed, and
 * said so in `skipped`.
 */

export interface IndexableText {
  /** `user`, `assistant`, `tool`, `system`, `note`… (absent when the payload names none). */
  role?: string;
  /** The texts, in payload order. */
  texts: string[];
  /** Parts left out of the index, in words. */
  skipped: string[];
}

/** Strings deeper than this inside a tool's arguments are not looked at. */
const MAX_DEPTH = 8;
/** A run of this many base64 or hex characters without a space is data, not words. */
const DATA_RUN = /[A-Za-z0-9+/=_-]{200,}/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/g;

export function extractIndexable(payload: Record<string, unknown>): IndexableText {
  const out: IndexableText = { texts: [], skipped: [] };
  if (typeof payload.role === 'string' && payload.role.trim()) out.role = payload.role.trim().slice(0, 40);
  else if (payload.type === 'note') out.role = 'note';
  if (payload.content !== undefined) content(payload.content, out, 'the message content');
  else if (typeof payload.text === 'string') addText(payload.text, out, 'the message text');
  if (Array.isArray(payload.tool_calls)) for (const call of payload.tool_calls) openAiToolCall(call, out);
  return out;
}

function content(c: unknown, out: IndexableText, where: string): void {
  if (typeof c === 'string') return addText(c, out, where);
  if (!Array.isArray(c)) {
    if (c !== null && typeof c === 'object') strings(c, out, where, 0);
    return;
  }
  for (const part of c) contentPart(part, out);
}

/** One part of Anthropic-style content: text, tool_use (its input), tool_result (its content), image (skipped). */
function contentPart(part: unknown, out: IndexableText): void {
  if (typeof part === 'string') return addText(part, out, 'a content part');
  if (!part || typeof part !== 'object') return;
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
      if (typeof p.text === 'string') addText(p.text, out, 'a text part');
      return;
    case 'tool_use': {
      const name = typeof p.name === 'string' ? p.name : 'a tool';
      const before = out.texts.length;
      strings(p.input, out, `the arguments of ${name}`, 0);
      if (out.texts.length > before && typeof p.name === 'string') out.texts[before] = `${p.name}: ${out.texts[before]}`;
      return;
    }
    case 'tool_result':
      return content(p.content, out, 'a tool result');
    case 'image':
    case 'document':
      out.skipped.push(`an attached ${p.type} (not text)`);
      return;
    default:
      if (typeof p.text === 'string') addText(p.text, out, 'a content part');
  }
}

/** `{ function: { name, arguments } }`: the arguments are a JSON string, read for their strings. */
function openAiToolCall(call: unknown, out: IndexableText): void {
  const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
  if (!fn) return;
  const name = typeof fn.name === 'string' ? fn.name : 'a tool';
  const where = `the arguments of ${name}`;
  let args: unknown = fn.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return addText(args as string, out, where);
    }
  }
  const before = out.texts.length;
  strings(args, out, where, 0);
  if (out.texts.length > before && typeof fn.name === 'string') out.texts[before] = `${fn.name}: ${out.texts[before]}`;
}

/** Every string inside `v` (objects and arrays), in order. */
function strings(v: unknown, out: IndexableText, where: string, depth: number): void {
  if (typeof v === 'string') return addText(v, out, where);
  if (depth >= MAX_DEPTH || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) strings(x, out, where, depth + 1);
    return;
  }
  for (const x of Object.values(v)) strings(x, out, where, depth + 1);
}

function addText(text: string, out: IndexableText, where: string): void {
  const reason = binaryReason(text);
  if (reason) {
    out.skipped.push(`${where}: ${reason}, not indexed`);
    return;
  }
  if (text.trim()) out.texts.push(text);
}

/** Why a string is data rather than text, or undefined when it reads as text. */
export function binaryReason(text: string): string | undefined {
  if (/^\s*data:[a-z]+\/[a-z0-9.+-]+;base64,/i.test(text)) return `a data URL of ${sizeOf(text)}`;
  const controls = text.match(CONTROL)?.length ?? 0;
  if (controls > 0 && controls * 100 >= text.length) return `binary data of ${sizeOf(text)}`;
  if (DATA_RUN.test(text)) {
    // Mostly one long run of base64 or hex: an encoded file, a key, a blob.
    const longest = Math.max(...(text.match(/[A-Za-z0-9+/=_-]{200,}/g) ?? ['']).map((r) => r.length));
    if (longest * 2 >= text.trim().length) return `encoded data of ${sizeOf(text)}`;
  }
  return undefined;
}

function sizeOf(text: string): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** Control characters a chunk never keeps (they were in text that otherwise reads as words). */
export function withoutControls(text: string): string {
  return text.replace(CONTROL, ' ');
}
