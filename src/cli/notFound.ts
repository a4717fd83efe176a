/**
 * "Not found" said precisely: an id that never existed (or was purged) is told apart from a
 * memory that was deleted or expired — restorable from Recently Deleted and Expired or with
 * `agent-memory restore` — and from one that was merged into another memory.
 */
import type { EngineClient } from '../engine/client/engineClient';
import { EngineError } from '../engine/errors';
import type { MemoryRecord } from '../engine/protocol';
import { memoryLabel } from '../present/memoryLabel';
import { describeAgo } from '../core/text/timeWords';
import { CliFailure } from './failure';

/**
 * The sentence for `id` not being a live memory: `record` is what `memory.get` with deleted ones
 * returns for it (null: none), `survivor` the memory it was merged into, if any.
 */
export function missingText(id: string, record: MemoryRecord | null, survivor: MemoryRecord | null, now = new Date()): string {
  if (!record) return `No memory with id ${id}. "agent-memory list" or "agent-memory search" show the ids.`;
  const name = `"${memoryLabel(record)}"`;
  const ago = record.deletedAt ? ` ${describeAgo(record.deletedAt, now)}` : '';
  if (record.replacedBy) {
    const into = survivor ? `"${memoryLabel(survivor)}"` : 'another memory';
    return `${name} was merged into ${into}${ago}: its text lives on there ("agent-memory history ${record.replacedBy}" shows the merge).`;
  }
  const what = record.retentionStatus === 'expired' ? 'expired' : 'was deleted';
  return `${name} ${what}${ago}. Restore it with "agent-memory restore ${id}" (in VS Code: Recently Deleted and Expired).`;
}

/** Looks up why `id` is not a live memory and returns the failure to print. */
export async function explainMissing(engine: Pick<EngineClient, 'request'>, id: string): Promise<CliFailure> {
  const record = await engine.request('memory.get', { id, includeDeleted: true });
  const survivor = record?.replacedBy ? await engine.request('memory.get', { id: record.replacedBy }) : null;
  return new CliFailure(missingText(id, record, survivor), 'not_found');
}

/** Runs `fn`; a not_found of `id` becomes the precise sentence. */
export async function aboutMemory<T>(engine: Pick<EngineClient, 'request'>, id: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof EngineError && e.code === 'not_found') throw await explainMissing(engine, id);
    throw e;
  }
}
