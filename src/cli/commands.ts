/**
 * The CLI commands over the engine protocol: each returns the one JSON object --json prints
 * (the engine's own result type where there is one) and the lines a person reads otherwise, where
 * a memory is named by its title or first words (memoryLabel), its id after the name for the
 * commands that take one.
 */
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { EngineClient } from '../engine/client/engineClient';
import type { HistoryEntry, ImportResult, MemoryRecord, MemorySummary } from '../engine/protocol';
import { memoryLabel } from '../present/memoryLabel';
import { exportTo, importFrom } from '../engine/client/transferClient';
import { UsageError, need, type CliArgs } from './args';
import { removedCommand, restoreCommand } from './removed';
import { aboutMemory, explainMissing } from './notFound';
import { plural } from '../core/text/plural';
import { eventsCommand, webhooksCommand } from './changes';
import { describeCreate, describeRedacted } from '../present/createResultText';
import { describeSecretScan } from '../present/secretScanText';
import { scheduleCommand } from './scheduleCommand';
import { noteCommand, scratchpadCommand, sessionCommand } from './sessionCommands';
import { encryptionAction, encryptionCommand } from './encryption';
import { agentsMdCommand, importFromCommand } from './importFrom';
import { teamCommand } from './team';

export interface CommandOutput {
  json: unknown;
  text: string;
  /** stdout carried the data (an export to stdout): the answer goes to stderr. */
  toStderr?: boolean;
  /** The command printed its answer but failed (nothing imported): this line goes to stderr, exit 1. */
  failure?: string;
}

export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

type Command = (engine: EngineClient, args: CliArgs, io: CommandIo) => Promise<CommandOutput>;

const filters = (a: CliArgs) => ({
  ...(a.type ? { types: [a.type] } : {}),
  ...(a.tags ? { tags: a.tags } : {}),
  ...(a.scope ? { scope: a.scope } : {}),
});

/** Largest text `add -` and `update --content -` read from stdin (the engine's own limit is lower). */
const MAX_STDIN_TEXT = 8 * 1024 * 1024;

/** `-` → the text on stdin (a usage error when there is none). */
async function textArg(value: string, io: CommandIo, what: string, command: CliArgs['command']): Promise<string> {
  if (value !== '-') return value;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += b.length;
    if (size > MAX_STDIN_TEXT) throw new UsageError(`${command}: the ${what} on stdin is longer than ${MAX_STDIN_TEXT} bytes`, command);
    chunks.push(b);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .trim();
  if (!text) throw new UsageError(`${command}: stdin was empty (give the ${what} there, or as arguments)`, command);
  return text;
}

export const COMMAND_TABLE: Record<Exclude<CliArgs['command'], 'mcp' | 'hook'>, Command> = {
  add: async (engine, a, io) => {
    const r = await engine.request('memory.create', {
      content: await textArg(need(a, 'text', true), io, 'text', 'add'),
      agentSource: 'cli',
      // Without --automatic a person adds it on purpose: never merged into another memory (docs/consolidation.md).
      origin: a.automatic ? 'capture' : 'person',
      ...(a.ttl !== undefined ? { ttlSeconds: a.ttl } : {}),
      ...(a.title ? { title: a.title } : {}),
      ...(a.type ? { type: a.type } : {}),
      ...(a.tags ? { tags: a.tags } : {}),
      ...(a.importance !== undefined ? { importance: a.importance } : {}),
      ...(a.scope ? { scope: a.scope } : {}),
    });
    return { json: r, text: describeCreate(r, { ids: true }) };
  },
  search: async (engine, a) => {
    const r = await engine.request('search', {
      query: need(a, 'query', true),
      recordAccess: true,
      ...(a.limit ? { limit: a.limit } : {}),
      ...filters(a),
    });
    const lines = r.hits.map(
      (h, i) =>
        `${i + 1}. ${memoryLabel({ title: h.memory.title, content: h.content })} [${h.memory.type}, ${h.store}] (relevance ${Math.round(h.relevance * 100)}%)${idTail(h.memory.id)}`,
    );
    return { json: r, text: lines.length ? lines.join('\n') : 'no relevant memories' };
  },
  get: async (engine, a) => {
    const id = need(a, 'id');
    const m = await engine.request('memory.get', { id });
    if (!m) throw await explainMissing(engine, id);
    return { json: m, text: describe(m) };
  },
  list: async (engine, a) => {
    const r = await engine.request('memory.list', {
      ...(a.limit ? { limit: a.limit } : {}),
      ...(a.offset ? { offset: a.offset } : {}),
      ...filters(a),
    });
    return { json: r, text: [plural(r.total, 'memory', 'memories'), ...r.items.map(summaryLine)].join('\n') };
  },
  update: async (engine, a, io) => {
    const id = need(a, 'id');
    const content = a.content !== undefined ? await textArg(a.content, io, 'text', 'update') : undefined;
    const patch = {
      ...(content !== undefined ? { content } : {}),
      ...(a.title !== undefined ? { title: a.title } : {}),
      ...(a.type ? { type: a.type } : {}),
      ...(a.tags ? { tags: a.tags } : {}),
      ...(a.importance !== undefined ? { importance: a.importance } : {}),
    };
    if (!Object.keys(patch).length)
      throw new UsageError('update: nothing to change (give --content, --title, --type, --tags or --importance)', 'update');
    const m = await aboutMemory(engine, id, () => engine.request('memory.update', { id, patch }));
    const redacted = describeRedacted(m.redacted);
    return { json: m, text: `updated ${memoryLabel(m)} (version ${m.version})${redacted ? `\n${redacted}` : ''}` };
  },
  delete: async (engine, a) => {
    const id = need(a, 'id');
    const m = await aboutMemory(engine, id, () => engine.request('memory.delete', { id, ...(a.reason ? { reason: a.reason } : {}) }));
    return { json: m, text: `deleted ${memoryLabel(m)} (agent-memory restore ${m.id} brings it back)` };
  },
  removed: (engine, a) => removedCommand(engine, a),
  restore: async (engine, a) => aboutMemory(engine, need(a, 'id'), () => restoreCommand(engine, a)),
  history: async (engine, a) => {
    const id = need(a, 'id');
    const entries = await aboutMemory(engine, id, () => engine.request('memory.history', { id }));
    return { json: { id, history: entries }, text: entries.map(historyLine).join('\n') || 'no history' };
  },
  export: async (engine, a, io) => {
    const file = need(a, 'file');
    const r = await exportTo(
      engine,
      file === '-' ? '-' : path.resolve(file),
      { ...(a.scope ? { scope: a.scope } : {}), ...(a.format ? { format: a.format } : {}) },
      io,
    );
    const json = { path: r.path, count: r.count, bytes: r.bytes };
    return { json, text: `exported ${plural(r.count, 'memory', 'memories')} to ${file === '-' ? 'stdout' : r.path}`, toStderr: r.toStdout };
  },
  import: async (engine, a, io) => {
    const file = need(a, 'file');
    const r = await importFrom(engine, file === '-' ? '-' : path.resolve(file), io);
    const failed = r.errors.length > 0 && r.created + r.duplicates + r.skipped === 0;
    return {
      json: r,
      text: importReport(r),
      ...(failed ? { failure: `nothing was imported: ${everyFailed(r.errors.length)}.` } : {}),
    };
  },
  'import-from': (engine, a) => importFromCommand(engine, a),
  'agents-md': (engine, a) => agentsMdCommand(engine, a),
  'scan-secrets': async (engine, a) => {
    const r = await engine.request('secrets.scan', { redact: a.redact === true });
    return { json: r, text: describeSecretScan(r, { redactHint: 'Run agent-memory scan-secrets --redact to remove them everywhere.' }) };
  },
  session: sessionCommand,
  scratchpad: scratchpadCommand,
  note: noteCommand,
  encryption: (engine, a) => {
    const action = encryptionAction(a);
    if (action === 'import-recovery-key') throw new UsageError('encryption import-recovery-key runs without the engine', 'encryption');
    return encryptionCommand(engine, a, action);
  },
  stats: async (engine) => {
    const s = await engine.request('stats', {});
    const text = [
      `project ${s.project.projectId}: ${plural(s.project.memories, 'memory', 'memories')} (${s.project.dir})`,
      `global: ${plural(s.global.memories, 'memory', 'memories')} (${s.global.dir})`,
    ].join('\n');
    return { json: s, text };
  },
  events: (engine, a, io) => eventsCommand(engine, a, io),
  webhooks: (engine, a) => webhooksCommand(engine, a),
  schedule: (engine, a) => scheduleCommand(engine, a),
  team: (engine, a, io) => teamCommand(engine, a, io),
};

/** How many failing lines an import's human output lists before "and N more". */
export const IMPORT_LINES_SHOWN = 10;

function everyFailed(n: number): string {
  return n === 1 ? 'its only memory failed' : `all ${n} of its memories failed`;
}

/** The summary, then each failing line or item with its reason (bounded), then the notes. */
export function importReport(r: ImportResult): string {
  const head = `imported ${r.created} of ${plural(r.total, 'memory', 'memories')} (${plural(r.duplicates, 'duplicate')}, ${r.skipped} skipped, ${plural(r.errors.length, 'error')})`;
  const bounded = (list: { message: string }[], more: (n: number) => string) =>
    list.length > IMPORT_LINES_SHOWN
      ? [...list.slice(0, IMPORT_LINES_SHOWN).map((e) => e.message), more(list.length - IMPORT_LINES_SHOWN)]
      : list.map((e) => e.message);
  return [
    head,
    ...bounded(r.errors, (n) => `…and ${n} more (--json lists every one)`),
    ...bounded(r.warnings ?? [], (n) => `…and ${plural(n, 'more note')} (--json lists every one)`),
  ].join('\n');
}

function describe(m: MemoryRecord): string {
  return [
    `${memoryLabel(m)} [${m.type}, ${m.scope}]`,
    `id: ${m.id}  tags: ${m.tags.join(', ') || '-'}  importance: ${m.importance}  version: ${m.version}`,
    '',
    m.content,
  ].join('\n');
}

function summaryLine(m: MemorySummary): string {
  return `${memoryLabel(m)} [${m.type}]${idTail(m.id)}`;
}

/** After the name, never instead of it: the id the other commands take (get, update, delete…). */
function idTail(id: string): string {
  return `  · id ${id}`;
}

function historyLine(h: HistoryEntry): string {
  return `${h.createdAt} ${h.event}${h.changedBy ? ` by ${h.changedBy}` : ''}${h.reason ? ` (${h.reason})` : ''}`;
}
