/**
 * `agent-memory session`, `scratchpad` and `note` (docs/sessions.md): agent sessions from a
 * terminal or a script. `session log <id>` reads events as JSON on stdin (one event, a list, or
 * one per line); `session forget` asks first: it needs --yes.
 */
import type { EngineClient } from '../engine/client/engineClient';
import type { EventInput, SessionEvent, SessionInfo } from '../engine/protocol';
import { plural } from '../core/text/plural';
import { UsageError, need, type CliArgs } from './args';
import type { CommandIo, CommandOutput } from './commands';

export const SESSION_ACTIONS = ['log', 'list', 'show', 'search', 'summary', 'forget'] as const;
export const NOTE_ACTIONS = ['add', 'delete', 'list'] as const;

/** Largest JSON read from stdin by `session log` (the engine checks each event's own limit). */
const MAX_STDIN_JSON = 64 * 1024 * 1024;

async function readStdin(io: CommandIo, command: CliArgs['command']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin as AsyncIterable<Buffer | string>) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c);
    size += b.length;
    if (size > MAX_STDIN_JSON) throw new UsageError(`${command}: the JSON on stdin is over ${MAX_STDIN_JSON / 1024 / 1024} MB`, command);
    chunks.push(b);
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\ufeff/, '');
}

/** Events from stdin: a JSON event, a JSON list of events, or JSON Lines. An event is `{payload, sequence?}` or the message itself. */
export function parseEvents(text: string): EventInput[] {
  const trimmed = text.trim();
  if (!trimmed) throw new UsageError('session log: stdin was empty (give the events as JSON there)', 'session');
  let values: unknown[];
  try {
    const v = JSON.parse(trimmed) as unknown;
    values = Array.isArray(v) ? v : [v];
  } catch {
    values = trimmed.split('\n').flatMap((line, i) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        throw new UsageError(`session log: line ${i + 1} of stdin is not JSON (give one JSON event per line, or a JSON list)`, 'session');
      }
    });
  }
  return values.map((v) => {
    const o = v as { payload?: unknown; sequence?: unknown } | null;
    if (o && typeof o === 'object' && !Array.isArray(o) && 'payload' in o)
      return { payload: o.payload, ...(typeof o.sequence === 'number' ? { sequence: o.sequence } : {}) };
    return { payload: v };
  });
}

function sessionLine(s: SessionInfo): string {
  const summary = s.summary?.text ? ` — ${s.summary.text.replace(/\s+/g, ' ').slice(0, 100)}` : '';
  return `${s.sessionId}${s.agent ? ` (${s.agent})` : ''}: ${plural(s.events, 'event')}, last active ${s.updatedAt.slice(0, 16).replace('T', ' ')}${summary}`;
}

function eventLine(e: SessionEvent): string {
  const p = e.payload as { role?: unknown; content?: unknown };
  const role = typeof p?.role === 'string' ? p.role : 'event';
  const content = typeof p?.content === 'string' ? p.content : JSON.stringify(p?.content ?? p);
  return `${e.sequence}. ${role}: ${content}`;
}

function action<T extends string>(a: CliArgs, allowed: readonly T[]): T {
  const word = a.positionals[0];
  if (!word || !(allowed as readonly string[]).includes(word))
    throw new UsageError(`${a.command}: ${word ? `unknown action "${word}"` : 'give an action'}: one of ${allowed.join(', ')}`, a.command);
  return word as T;
}

/** The arguments after the action. */
const rest = (a: CliArgs): CliArgs => ({ ...a, positionals: a.positionals.slice(1) });

type SessionAction = (typeof SESSION_ACTIONS)[number];
type Run = (engine: EngineClient, a: CliArgs, io: CommandIo) => Promise<CommandOutput>;

const SESSION: Record<SessionAction, Run> = {
  log: async (engine, a, io) => {
    const sessionId = need(a, 'session-id');
    const events = parseEvents(await readStdin(io, 'session'));
    const r = await engine.request('sessions.log', { sessionId, events, agent: a.agent ?? 'agent-memory cli' });
    const skipped = r.skipped.length ? `\nnot indexed: ${r.skipped.join('; ')}` : '';
    return { json: r, text: `logged ${plural(r.sequences.length, 'event')} to ${sessionId} (last sequence ${r.lastSequence})${skipped}` };
  },
  list: async (engine, a) => {
    const r = await engine.request('sessions.list', {
      ...(a.limit ? { limit: Math.min(a.limit, 200) } : {}),
      ...(a.offset ? { offset: a.offset } : {}),
    });
    return { json: r, text: [plural(r.total, 'session'), ...r.items.map(sessionLine)].join('\n') };
  },
  show: async (engine, a) => {
    const sessionId = need(a, 'session-id');
    const info = await engine.request('sessions.get', { sessionId });
    if (!info) throw new UsageError(`session show: no session ${sessionId} (agent-memory session list shows them)`, 'session');
    const events = await engine.request('sessions.events', { sessionId, limit: Math.min(a.limit ?? 1000, 1000) });
    const lines = [sessionLine(info)];
    if (info.scratchpad?.items.length) lines.push('scratchpad:', ...info.scratchpad.items.map((i) => `- ${i}`));
    lines.push('', ...events.map(eventLine));
    return { json: { session: info, events }, text: lines.join('\n') };
  },
  search: async (engine, a) => {
    const r = await engine.request('sessions.search', {
      query: need(a, 'query', true),
      ...(a.limit ? { limit: Math.min(a.limit, 100) } : {}),
      ...(a.session ? { sessionId: a.session } : {}),
      ...(a.tags ? { tags: a.tags } : {}),
    });
    const lines = r.hits.map(
      (h, i) =>
        `${i + 1}. ${h.sessionId} ${h.noteId ?? `turns ${h.sequenceStart}-${h.sequenceEnd}`} (relevance ${Math.round(h.relevance * 100)} %): ${h.text.replace(/\s+/g, ' ').slice(0, 200)}`,
    );
    return { json: r, text: lines.length ? lines.join('\n') : 'nothing relevant in the sessions' };
  },
  summary: async (engine, a) => {
    const sessionId = need(a, 'session-id');
    if (a.now) await engine.request('sessions.summarize', { sessionId });
    const s = await engine.request('sessions.summary', { sessionId });
    return { json: s, text: s ? `${s.text}\n(epoch ${s.epoch}, up to event ${s.upperSequence})` : `${sessionId} has no summary yet` };
  },
  forget: async (engine, a) => {
    const sessionId = need(a, 'session-id');
    const info = await engine.request('sessions.get', { sessionId });
    if (!info) throw new UsageError(`session forget: no session ${sessionId} (agent-memory session list shows them)`, 'session');
    if (!a.yes)
      throw new UsageError(
        `session forget: this removes ${sessionId} and its ${plural(info.events, 'event')} for good: run it again with --yes to confirm`,
        'session',
      );
    const r = await engine.request('sessions.forget', { sessionId, who: 'agent-memory cli' });
    return { json: r, text: `forgot ${sessionId}: ${plural(r.events, 'event')}, ${plural(r.chunks, 'indexed passage')}` };
  },
};

export const sessionCommand: Run = (engine, a, io) => SESSION[action(a, SESSION_ACTIONS)](engine, rest(a), io);

/** `scratchpad <session-id> [item…]`: reads; with items replaces the list; --clear empties it. */
export const scratchpadCommand: Run = async (engine, a) => {
  const sessionId = need(a, 'session-id');
  const items = a.positionals.slice(1);
  if (a.clear) {
    if (items.length) throw new UsageError('scratchpad: give items or --clear, not both', 'scratchpad');
    const r = await engine.request('scratchpad.clear', { sessionId });
    return { json: r, text: r.cleared ? 'scratchpad cleared' : 'the scratchpad was already empty' };
  }
  const s = items.length
    ? await engine.request('scratchpad.write', { sessionId, items, agent: a.agent ?? 'agent-memory cli' })
    : await engine.request('scratchpad.read', { sessionId });
  const list = s?.items ?? [];
  return { json: s ?? { items: [] }, text: list.length ? list.map((i) => `- ${i}`).join('\n') : 'the scratchpad is empty' };
};

/** `note add <text…>`, `note delete <note-id>`, `note list`. */
export const noteCommand: Run = async (engine, a0) => {
  const act = action(a0, NOTE_ACTIONS);
  const a = rest(a0);
  const session = a.session ? { sessionId: a.session } : {};
  if (act === 'add') {
    const r = await engine.request('notes.store', {
      content: need(a, 'text', true),
      agent: a.agent ?? 'agent-memory cli',
      ...session,
      ...(a.tags ? { tags: a.tags } : {}),
      ...(a.source ? { source: a.source } : {}),
    });
    return { json: r, text: `stored ${r.noteId} in ${r.sessionId}` };
  }
  if (act === 'delete') {
    const noteId = need(a, 'note-id');
    const r = await engine.request('notes.delete', { noteId, ...session });
    return { json: r, text: r.deleted ? `deleted ${noteId}` : `no note ${noteId}: nothing deleted` };
  }
  const notes = await engine.request('notes.list', { ...session, ...(a.limit ? { limit: a.limit } : {}) });
  return {
    json: { notes },
    text: notes.length
      ? notes.map((n) => `${n.noteId}${n.tags.length ? ` [${n.tags.join(', ')}]` : ''}: ${n.content}`).join('\n')
      : 'no notes',
  };
};
