/**
 * Applying the server's changes to the local store (docs/team.md "Pulling"), in the server's
 * order, each in the caller's transaction together with the pull cursor: applying a change
 * twice changes nothing (a memory already based on that server version or a later one is
 * skipped), and a crash leaves either all of a batch or none of it.
 *
 * A pulled version replaces the local one through the memory's history (old and new record),
 * so both versions stay there. When the local copy had an edit the server has not taken, the
 * server's order wins and the local version is kept as a conflict to resolve. A version whose
 * content another live local memory already has absorbs that memory (content-hash de-dup).
 * Vectors are not shipped: a replaced text is `pending` and the store's embedder computes it.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';
import { rowToRecord, recordToColumns } from '../memory/rows';
import { writeHistory } from '../memory/history';
import { collectEmbedding } from '../memory/embedding';
import { computeDocHash } from '../text/docHash';
import { createdSummary } from '../memory/recordParts';
import type { MemoryRecord } from '../memory/types';
import { enqueueMemoryJob } from '../jobs/enqueue';
import { readBase, recordConflict, writeBase, type MemoryBase } from './localState';
import { sharedOf, stateHash } from './payload';
import type { ServerChange, SharedMemory } from './types';

export type ApplyOutcome = 'skipped' | 'same' | 'own' | 'applied' | 'conflict';

const COLUMNS = Object.keys(
  recordToColumns({ content: '', tags: [], mergedFrom: [], decisions: [], rationale: [], metadata: {} } as unknown as MemoryRecord),
);
const INSERT_SQL = `INSERT INTO memories (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const UPDATE_SQL = `UPDATE memories SET ${COLUMNS.filter((c) => c !== 'id')
  .map((c) => `${c} = ?`)
  .join(', ')} WHERE rid = ?`;

/** The actor a pulled change is recorded under in the history and the change feed. */
export function teamActor(author: string): string {
  return `team:${author}`;
}

/** The machine-local fields a pulled version keeps from the local copy (row, vector, access, pipeline state). */
function localPart(local: MemoryRecord | undefined, textSame: boolean) {
  if (!local) {
    return {
      rid: 0,
      eventType: null,
      extractionModel: null,
      tier: 'hot',
      accessCount: 0,
      lastAccessedAt: null,
      version: 1,
      embeddingStatus: 'pending' as const,
      embeddingVersion: null,
      embeddingHash: null,
      metadata: {},
      // Recall context (the previous turn, a heading path) and speaker come from how the text was
      // written here; the team server does not carry them.
      searchContext: '',
      speaker: null,
      // Text made elsewhere was extracted (or not) there: the pipeline does not extract it again.
      pipelineStatus: 'complete',
    };
  }
  return {
    rid: local.rid,
    eventType: local.eventType,
    extractionModel: local.extractionModel,
    tier: local.tier,
    accessCount: local.accessCount,
    lastAccessedAt: local.lastAccessedAt,
    version: local.version + 1,
    embeddingStatus: textSame ? local.embeddingStatus : ('pending' as const),
    embeddingVersion: textSame ? local.embeddingVersion : null,
    embeddingHash: textSame ? local.embeddingHash : null,
    metadata: local.metadata,
    searchContext: local.searchContext,
    speaker: local.speaker,
    pipelineStatus: local.pipelineStatus,
  };
}

function recordOf(s: SharedMemory, projectId: string, local: MemoryRecord | undefined): MemoryRecord {
  const keep = localPart(local, local !== undefined && local.title === s.title && local.content === s.content);
  return {
    ...keep,
    id: s.id,
    projectId,
    scope: 'project',
    type: s.type as MemoryRecord['type'],
    title: s.title,
    content: s.content,
    summary: s.summary,
    contentHash: s.contentHash,
    docHash: computeDocHash({ topic: s.title, context: s.content, decisions: s.decisions, rationale: s.rationale }),
    tags: [...s.tags],
    importance: s.importance,
    source: s.source,
    agentSource: s.agentSource,
    who: s.who,
    why: s.why,
    retentionStatus: s.retentionStatus,
    ttlSeconds: s.ttlSeconds,
    expiresAt: s.expiresAt,
    mergedFrom: [...s.mergedFrom],
    replacedBy: s.replacedBy,
    deletedAt: s.deletedAt,
    deletedBy: s.deletedBy,
    deleteReason: s.deleteReason,
    decisions: [...s.decisions],
    rationale: [...s.rationale],
    metadata: { ...keep.metadata, ...s.metadata },
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

function historyEvent(local: MemoryRecord | undefined, next: MemoryRecord): string {
  if (!local) return 'created';
  if (!local.deletedAt && next.deletedAt) return next.retentionStatus === 'merged' ? 'merged_into' : 'deleted';
  if (local.deletedAt && !next.deletedAt) return 'restored';
  return 'updated';
}

function writeTags(tx: Tx, rid: number, tags: string[], fresh: boolean): void {
  if (!fresh) tx.run('DELETE FROM memory_tags WHERE rid = ?', [rid]);
  for (const tag of tags) tx.run('INSERT OR IGNORE INTO memory_tags (tag, rid) VALUES (?, ?)', [tag, rid]);
}

/** Another live local memory with the same content is absorbed into the pulled one (one memory per content). */
function absorbTwin(tx: Tx, next: MemoryRecord, ch: ServerChange, page: PageState | undefined): void {
  if (next.deletedAt) return;
  if (page && !page.hashes.has(next.contentHash)) {
    page.hashes.add(next.contentHash); // live from now on
    return;
  }
  const twin = tx.get('SELECT * FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL AND id <> ?', [
    next.projectId,
    next.contentHash,
    next.id,
  ]);
  if (!twin) return;
  const t = rowToRecord(twin);
  page?.stale.add(t.id);
  const gone: MemoryRecord = {
    ...t,
    deletedAt: ch.memory.updatedAt,
    deletedBy: teamActor(ch.author),
    deleteReason: 'the same memory came from the team',
    retentionStatus: 'merged',
    replacedBy: next.id,
    version: t.version + 1,
    updatedAt: ch.memory.updatedAt,
  };
  tx.run(UPDATE_SQL, [...Object.values(recordToColumns(gone)).slice(1), t.rid]);
  writeHistory(tx, {
    memoryId: t.id,
    event: 'merged_into',
    oldJson: t,
    newJson: gone,
    changedBy: teamActor(ch.author),
    reason: gone.deleteReason,
    metadata: { survivor: next.id },
    createdAt: gone.updatedAt,
  });
}

function writeVersion(tx: Tx, local: MemoryRecord | undefined, next: MemoryRecord, ch: ServerChange, page?: PageState): void {
  absorbTwin(tx, next, ch, page);
  // The row written is `next` with its row number: read back only that (a catch-up writes 100,000 of them).
  let saved: MemoryRecord;
  if (local) {
    tx.run(UPDATE_SQL, [...Object.values(recordToColumns(next)).slice(1), local.rid]);
    if (local.embeddingHash !== next.embeddingHash) collectEmbedding(tx, local.embeddingHash);
    saved = { ...next, rid: local.rid };
  } else {
    tx.run(INSERT_SQL, Object.values(recordToColumns(next)));
    saved = { ...next, rid: Number(tx.get<{ rid: number }>('SELECT rid FROM memories WHERE id = ?', [next.id])!.rid) };
  }
  writeTags(tx, saved.rid, saved.tags, !local);
  writeHistory(tx, {
    memoryId: saved.id,
    event: historyEvent(local, saved),
    oldContent: local?.content ?? null,
    newContent: saved.content,
    ...(local ? { oldJson: local } : {}),
    // A create records the summary the write path records (recordParts.createdSummary); a change the whole record.
    newJson: local ? saved : createdSummary(saved),
    changedBy: teamActor(ch.author),
    reason: null,
    metadata: { team: { seq: ch.seq, machine: ch.machine } },
    createdAt: ch.memory.updatedAt,
  });
}

/** Where a pulled change is applied: the store's project, this copy's name, and who shares from it. */
export interface ApplyTarget {
  projectId: string;
  /** This store copy's name on the server. */
  machine: string;
  /**
   * Set while the pipeline is on and this store holds memories of its own person (`author`): a
   * new or rewritten memory from someone else is queued for the pipeline's decision against them
   * (docs/team.md "Contradicting facts", review.ts), in the same transaction as the change.
   */
  review?: { author: string };
  /** What a page's memories were before it (readPage): two queries for a page instead of two per change. */
  page?: PageState;
}

/**
 * The bases and local rows of a page's memories, read once. A memory the page has changed since
 * (a change applied to it, or absorbed as a twin) is `stale`: it is read from the store again.
 */
export interface PageState {
  bases: Map<string, MemoryBase>;
  rows: Map<string, MemoryRecord>;
  stale: Set<string>;
  /** Content hashes live here when the page was read, and those the page wrote since: a hash in neither has no twin to absorb. */
  hashes: Set<string>;
}

type BaseRow = { memory_id: string; server_seq: number; state_hash: string; author: string | null; machine: string | null };

/** Reads the bases and local rows of `ids` (a pulled page's memories) in a few queries. */
export function readPage(db: Pick<Tx, 'all'>, projectId: string, changes: readonly ServerChange[]): PageState {
  const page: PageState = { bases: new Map(), rows: new Map(), stale: new Set(), hashes: new Set() };
  const unique = [...new Set(changes.map((c) => c.memoryId))];
  const hashes = [...new Set(changes.map((c) => c.memory.contentHash))];
  for (let i = 0; i < hashes.length; i += 500) {
    const part = hashes.slice(i, i + 500);
    const sql = `SELECT content_hash FROM memories WHERE project_id = ? AND deleted_at IS NULL AND content_hash IN (${part.map(() => '?').join(', ')})`;
    for (const r of db.all<{ content_hash: string }>(sql, [projectId, ...part])) page.hashes.add(String(r.content_hash));
  }
  for (let i = 0; i < unique.length; i += 500) {
    const part = unique.slice(i, i + 500);
    const marks = part.map(() => '?').join(', ');
    const sql = `SELECT memory_id, server_seq, state_hash, author, machine FROM team_memories WHERE memory_id IN (${marks})`;
    for (const b of db.all<BaseRow>(sql, part)) {
      const base = { serverSeq: Number(b.server_seq), stateHash: String(b.state_hash), author: b.author, machine: b.machine };
      page.bases.set(String(b.memory_id), base);
    }
    for (const r of db.all(`SELECT * FROM memories WHERE id IN (${marks})`, part)) page.rows.set(String(r.id), rowToRecord(r));
  }
  return page;
}

/** The base and local row of `id`: from the page read before it while it is not stale, else from the store. */
function current(tx: Tx, t: ApplyTarget, id: string): { base: MemoryBase | undefined; local: MemoryRecord | undefined } {
  const page = t.page;
  if (page && !page.stale.has(id)) {
    page.stale.add(id); // applying this change changes both
    return { base: page.bases.get(id), local: page.rows.get(id) };
  }
  const row = tx.get('SELECT * FROM memories WHERE id = ?', [id]);
  return { base: readBase(tx, id), local: row ? rowToRecord(row) : undefined };
}

/** The job that runs the pipeline's decision on a memory someone else shared (review.ts). */
export const TEAM_REVIEW_JOB = 'team_review';

function queueReview(tx: Tx, t: ApplyTarget, local: MemoryRecord | undefined, ch: ServerChange, iso: string): void {
  if (!t.review || ch.author === t.review.author || ch.memory.deletedAt) return;
  if (local && local.content === ch.memory.content && local.title === ch.memory.title) return; // the text did not change
  enqueueMemoryJob(tx, TEAM_REVIEW_JOB, ch.memoryId, iso, { payload: { author: ch.author, machine: ch.machine, me: t.review.author } });
}

/**
 * Applies one server change in `tx`. `t.machine` is this store copy's name: a change it pushed
 * itself only moves the memory's base (the local copy is that version or newer).
 */
export function applyServerChange(tx: Tx, t: ApplyTarget, ch: ServerChange, iso: string): ApplyOutcome {
  const { projectId, machine } = t;
  const { base, local } = current(tx, t, ch.memoryId);
  if (base && base.serverSeq >= ch.seq) return 'skipped';
  const newBase = { serverSeq: ch.seq, stateHash: ch.stateHash, author: ch.author, machine: ch.machine };
  const localHash = local ? stateHash(sharedOf(local)) : undefined;
  if (ch.machine === machine || localHash === ch.stateHash) {
    writeBase(tx, ch.memoryId, newBase);
    return ch.machine === machine ? 'own' : 'same';
  }
  // The local copy changed since its base and the server took someone else's version first.
  const unpushed = local !== undefined && (!base || base.stateHash !== localHash);
  if (unpushed) {
    recordConflict(tx, {
      id: randomUUID(),
      memoryId: ch.memoryId,
      serverSeq: ch.seq,
      serverAuthor: ch.author,
      local: sharedOf(local),
      createdAt: iso,
    });
  }
  writeVersion(tx, local, recordOf(ch.memory, projectId, local), ch, t.page);
  writeBase(tx, ch.memoryId, newBase);
  if (!unpushed) queueReview(tx, t, local, ch, iso);
  return unpushed ? 'conflict' : 'applied';
}
