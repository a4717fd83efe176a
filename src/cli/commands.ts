/**
 * The CLI commands over the engine protocol: each returns the one JSON object --json prints
 * (the engine's own result type where there is one) and the lines a person reads otherwise.
 */
import * as path from 'node:path';
import type { EngineClient } from '../engine/client';
import { EngineError } from '../engine/errors';
import type { HistoryEntry, MemoryRecord, MemorySummary } from '../engine/protocol';
import { need, type CliArgs } from './args';
import { removedCommand, restoreCommand } from './removed';
import { plural } from '../core/text/plural';
import { describeCreate } from '../engine/createResultText';

export interface CommandOutput {
  json: unknown;
  text: string;
}

type Command = (engine: EngineClient, args: CliArgs) => Promise<CommandOutput>;

const filters = (a: CliArgs) => ({
  ...(a.type ? { types: [a.type] } : {}),
  ...(a.tags ? { tags: a.tags } : {}),
  ...(a.scope ? { scope: a.scope } : {}),
});

export const COMMAND_TABLE: Record<Exclude<CliArgs['command'], 'mcp'>, Command> = {
  add: async (engine, a) => {
    const r = await engine.request('memory.create', {
      content: need(a, 'text', true),
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
      (h, i) => `${i + 1}. ${h.memory.id} [${h.memory.type}, ${h.store}] ${h.memory.title} (relevance ${Math.round(h.relevance * 100)} %)`,
    );
    return { json: r, text: lines.length ? lines.join('\n') : 'no relevant memories' };
  },
  get: async (engine, a) => {
    const id = need(a, 'id');
    const m = await engine.request('memory.get', { id });
    if (!m) throw new EngineError('not_found', `No memory with id ${id}.`);
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
  update: async (engine, a) => {
    const patch = {
      ...(a.content !== undefined ? { content: a.content } : {}),
      ...(a.title !== undefined ? { title: a.title } : {}),
      ...(a.type ? { type: a.type } : {}),
      ...(a.tags ? { tags: a.tags } : {}),
      ...(a.importance !== undefined ? { importance: a.importance } : {}),
    };
    if (!Object.keys(patch).length)
      throw new EngineError('invalid_input', 'update: nothing to change (give --content, --title, --type, --tags or --importance).');
    const m = await engine.request('memory.update', { id: need(a, 'id'), patch });
    return { json: m, text: `updated ${m.id} (version ${m.version})` };
  },
  delete: async (engine, a) => {
    const m = await engine.request('memory.delete', { id: need(a, 'id'), ...(a.reason ? { reason: a.reason } : {}) });
    return { json: m, text: `deleted ${m.id}` };
  },
  removed: (engine, a) => removedCommand(engine, a),
  restore: (engine, a) => restoreCommand(engine, a),
  history: async (engine, a) => {
    const id = need(a, 'id');
    const entries = await engine.request('memory.history', { id });
    return { json: { id, history: entries }, text: entries.map(historyLine).join('\n') || 'no history' };
  },
  export: async (engine, a) => {
    const r = await engine.request('export', {
      path: path.resolve(need(a, 'file')),
      ...(a.scope ? { scope: a.scope } : {}),
      ...(a.format ? { format: a.format } : {}),
    });
    return { json: r, text: `exported ${plural(r.count, 'memory', 'memories')} to ${r.path}` };
  },
  import: async (engine, a) => {
    const r = await engine.request('import', { path: path.resolve(need(a, 'file')) });
    const text = `imported ${r.created} of ${r.total} (${plural(r.duplicates, 'duplicate')}, ${r.skipped} skipped, ${plural(r.errors.length, 'error')})`;
    return { json: r, text };
  },
  stats: async (engine) => {
    const s = await engine.request('stats', {});
    const text = [
      `project ${s.project.projectId}: ${plural(s.project.memories, 'memory', 'memories')} (${s.project.dir})`,
      `global: ${plural(s.global.memories, 'memory', 'memories')} (${s.global.dir})`,
    ].join('\n');
    return { json: s, text };
  },
};

function describe(m: MemoryRecord): string {
  return [
    `${m.id} [${m.type}, ${m.scope}] ${m.title}`,
    `tags: ${m.tags.join(', ') || '-'}  importance: ${m.importance}  version: ${m.version}`,
    '',
    m.content,
  ].join('\n');
}

function summaryLine(m: MemorySummary): string {
  return `${m.id} [${m.type}] ${m.title}`;
}

function historyLine(h: HistoryEntry): string {
  return `${h.createdAt} ${h.event}${h.changedBy ? ` by ${h.changedBy}` : ''}${h.reason ? ` (${h.reason})` : ''}`;
}
