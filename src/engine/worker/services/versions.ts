/**
 * A memory's versions, read back from its history (docs/write-path.md: every change appends one
 * memory_history row holding the record after it), and "restore this version": the old text and
 * fields written back as a NEW version through the ordinary update, so the restore is itself in
 * the history and can be undone the same way.
 */
import { displayText } from '../../../core/documents/markdownText';
import type { MemoryRecord, MemoryScope } from '../../../core/memory/types';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { MemoryVersion } from '../../protocol';
import type { MemoriesService } from './memories';

/** The fields a restore writes back (scope is not one: a scope change is a move to another store, with a new id). */
const RESTORED_FIELDS = ['title', 'content', 'type', 'tags', 'importance'] as const;

interface HistoryRow {
  event: string;
  new_content: string | null;
  new_json: string | null;
  changed_by: string | null;
  reason: string | null;
  metadata_json: string | null;
  created_at: string;
}

export class VersionsService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly memories: MemoriesService,
  ) {}

  /** Every version of the memory, oldest first; the current one is always there (even when its history was swept). */
  versions(id: string): MemoryVersion[] {
    const { runtime, record } = this.ctx.stores.mustLocate(id, true);
    const rows = runtime.store.all<HistoryRow>(
      `SELECT event, new_content, new_json, changed_by, reason, metadata_json, created_at FROM memory_history
       WHERE memory_id = ? ORDER BY created_at, rowid`,
      [id],
    );
    return versionsFromHistory(rows, record);
  }

  /** Writes version `version`'s text and fields back as a new version (optimistic check against `expectedVersion`). */
  async restoreVersion(id: string, version: number, expectedVersion?: number): Promise<MemoryRecord> {
    const old = this.versions(id).find((v) => v.version === version);
    if (!old) throw new EngineError('invalid_input', `version: memory ${id} has no version ${version}`);
    const current = this.memories.get(id);
    if (!current) throw new EngineError('not_found', `No memory with id ${id}.`);
    const patch: Record<string, unknown> = {};
    const shown = { ...current, content: displayText(current) };
    for (const f of RESTORED_FIELDS) if (JSON.stringify(old[f]) !== JSON.stringify(shown[f])) patch[f] = old[f];
    if (!Object.keys(patch).length) return current;
    return this.memories.update(id, {
      ...patch,
      expectedVersion: expectedVersion ?? current.version,
      who: 'user',
      why: `restored version ${version}`,
    });
  }
}

/** The state after each history row that produced a version, built up from the rows before it. */
export function versionsFromHistory(rows: HistoryRow[], current: MemoryRecord): MemoryVersion[] {
  const out = new Map<number, MemoryVersion>();
  let state: MemoryVersion | undefined;
  for (const r of rows) {
    const next = parseJson(r.new_json);
    if (typeof next?.version !== 'number') continue; // promotions, access and audit rows make no version
    const base = state ?? initialState(current);
    state = {
      version: next.version,
      event: r.event,
      changedBy: r.changed_by,
      reason: r.reason,
      createdAt: r.created_at,
      changed: changedList(parseJson(r.metadata_json)),
      title: str(next.title, base.title),
      // As written: a multi-line text keeps its line breaks (core/memory/lineBreaks.ts).
      content: writtenText(r.new_content ?? str(next.content, base.content), next.metadata),
      type: str(next.type, base.type),
      tags: Array.isArray(next.tags) ? next.tags.map(String) : base.tags,
      importance: typeof next.importance === 'number' ? next.importance : base.importance,
      scope: (next.scope === 'global' || next.scope === 'project' ? next.scope : base.scope) as MemoryScope,
      expiresAt: next.expiresAt === undefined ? base.expiresAt : (next.expiresAt as string | null),
      deleted: typeof next.deletedAt === 'string',
    };
    out.set(state.version, state);
  }
  if (!out.has(current.version)) out.set(current.version, { ...initialState(current), event: 'current' });
  return [...out.values()].sort((a, b) => a.version - b.version);
}

function initialState(m: MemoryRecord): MemoryVersion {
  return {
    version: m.version,
    event: 'created',
    changedBy: m.who ?? null,
    reason: null,
    createdAt: m.updatedAt,
    changed: [],
    title: m.title,
    content: displayText(m),
    type: m.type,
    tags: m.tags,
    importance: m.importance,
    scope: m.scope,
    expiresAt: m.expiresAt,
    deleted: m.deletedAt !== null,
  };
}

/** A version's text as written, from its stored content and the metadata recorded with it. */
function writtenText(content: string, metadata: unknown): string {
  return displayText({ content, metadata: metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : null });
}

function parseJson(s: string | null): Record<string, unknown> | undefined {
  if (!s) return undefined;
  try {
    const v: unknown = JSON.parse(s);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // a damaged row reads as "no version", never breaks the timeline
  }
}

/** Record fields people know, as an update's `changed` list names them; hashes and other internals are left out. */
const SHOWN_FIELDS: Record<string, string> = {
  title: 'title',
  content: 'content',
  type: 'type',
  tags: 'tags',
  importance: 'importance',
  scope: 'scope',
  summary: 'summary',
  decisions: 'decisions',
  rationale: 'rationale',
  ttlSeconds: 'lifetime',
  expiresAt: 'lifetime',
};

function changedList(meta: Record<string, unknown> | undefined): string[] {
  const raw = Array.isArray(meta?.changed) ? meta.changed.map(String) : [];
  return [...new Set(raw.flatMap((k) => (SHOWN_FIELDS[k] ? [SHOWN_FIELDS[k]] : [])))];
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}
