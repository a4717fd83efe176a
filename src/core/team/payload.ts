/**
 * A memory's shared fields (docs/team.md "What is shared") and their hash. The hash is the
 * identity of a version: a local state whose hash equals the version last exchanged with the
 * server has nothing to push (it came from there), which is what keeps a pulled change from
 * being pushed back.
 */
import { createHash } from 'node:crypto';
import type { MemoryRecord } from '../memory/types';
import type { SharedMemory } from './types';

/** Metadata keys that belong to one machine's write (an idempotency key of its engine client). */
const LOCAL_METADATA = new Set(['idempotencyKey', 'idempotencyRetry']);

export function sharedOf(m: MemoryRecord): SharedMemory {
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m.metadata)) if (!LOCAL_METADATA.has(k)) metadata[k] = v;
  return {
    id: m.id,
    type: m.type,
    title: m.title,
    content: m.content,
    summary: m.summary,
    contentHash: m.contentHash,
    tags: [...m.tags],
    importance: m.importance,
    source: m.source,
    agentSource: m.agentSource,
    who: m.who,
    why: m.why,
    ttlSeconds: m.ttlSeconds,
    expiresAt: m.expiresAt,
    decisions: [...m.decisions],
    rationale: [...m.rationale],
    metadata,
    mergedFrom: [...m.mergedFrom],
    replacedBy: m.replacedBy,
    retentionStatus: m.retentionStatus,
    deletedAt: m.deletedAt,
    deletedBy: m.deletedBy,
    deleteReason: m.deleteReason,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** Canonical JSON: object keys sorted at every level, so equal versions hash equally wherever they were made. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The version's hash. `updatedAt` is left out: the same content, tags and state made twice is one version. */
export function stateHash(s: SharedMemory): string {
  const { updatedAt: _updated, ...rest } = s;
  void _updated;
  return createHash('sha256').update(canonical(rest)).digest('hex');
}

/** The id of a push: the same machine pushing the same version on the same base makes the same id. */
export function changeIdOf(machine: string, memoryId: string, baseSeq: number, hash: string): string {
  return createHash('sha256').update(`${machine}\n${memoryId}\n${baseSeq}\n${hash}`).digest('hex').slice(0, 32);
}
