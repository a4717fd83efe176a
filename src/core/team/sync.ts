/**
 * One sync round of a store with its team server (docs/team.md "Replication"): push what
 * changed locally since the push cursor, then pull what the server ordered since the pull
 * cursor. The network is only touched between local transactions: reading what to push is
 * synchronous, the push's answer is recorded in one short transaction, and every pulled page
 * is applied in one. A crash at any point resumes from the cursors: a push sent again has the
 * same change ids (the server stores it once) and a page applied again changes nothing.
 */
import type { ClientBase } from 'pg';
import type { Store } from '../store/store';
import { rowToRecord } from '../memory/rows';
import { hasSecret } from '../secrets/detect';
import { applyServerChange, readPage, type ApplyOutcome, type ApplyTarget } from './apply';
import { readBase, readCursors, writeBase, writeCursors } from './localState';
import { changeIdOf, sharedOf, stateHash } from './payload';
import { pullChanges, pushChanges } from './server';
import type { OutgoingChange, PushOutcome } from './types';
import { latestCursor } from '../changes/events';

export interface SyncContext {
  store: Store;
  client: ClientBase;
  schema: string;
  projectId: string;
  /** This store copy's name on the server (localState.machineIdOf). */
  machine: string;
  /** The person's name on the team. */
  author: string;
  /** Changes per push and per pulled page. */
  batch?: number;
  now?: () => Date;
  /**
   * The pipeline is on: pulled memories from other people are queued for its decision against
   * this person's own (apply.ts `ApplyTarget.review`).
   */
  reviewPulled?: boolean;
  /** Progress of the first upload of a store (memories sent so far, of how many). */
  onProgress?: (done: number, total: number) => void;
}

export interface SyncReport {
  pushed: number;
  pulled: number;
  conflicts: number;
  /** Pushes the server refused because someone else's version came first (they come back as conflicts on pull). */
  stale: number;
  /** New memories the server already had with the same content (the pull merges them). */
  duplicates: number;
  /** Memories kept on this machine because their text holds a credential. */
  heldBack: string[];
  /** Local changes still waiting to be pushed. */
  waiting: number;
  serverLatest: number;
}

const DEFAULT_BATCH = 500;

/** The change to push for one memory's current state, or why there is none. */
function changeFor(ctx: SyncContext, memoryId: string): OutgoingChange | 'none' | 'secret' {
  const row = ctx.store.get('SELECT * FROM memories WHERE id = ? AND project_id = ?', [memoryId, ctx.projectId]);
  if (!row) return 'none';
  const shared = sharedOf(rowToRecord(row));
  const hash = stateHash(shared);
  const base = readBase(ctx.store, shared.id);
  if (base?.stateHash === hash) return 'none'; // this version came from the server (or was pushed already)
  if (hasSecret([shared.title, shared.content, shared.summary ?? ''].join('\n'))) return 'secret';
  const baseSeq = base?.serverSeq ?? 0;
  return {
    changeId: changeIdOf(ctx.machine, shared.id, baseSeq, hash),
    memoryId: shared.id,
    baseSeq,
    stateHash: hash,
    memory: shared,
    author: ctx.author,
  };
}

/** The local changes after the push cursor, one per memory (its current state), at most `limit` memories, and the cursor they reach. */
export function outgoing(
  ctx: SyncContext,
  limit: number,
): { changes: OutgoingChange[]; through: number; heldBack: string[]; more: boolean } {
  const from = readCursors(ctx.store).pushedThrough;
  const rows = ctx.store.all<{ seq: number; memory_id: string }>(
    "SELECT seq, memory_id FROM memory_events WHERE seq > ? AND store = 'project' ORDER BY seq LIMIT ?",
    [from, limit * 4],
  );
  const seen = new Set<string>();
  const changes: OutgoingChange[] = [];
  const heldBack: string[] = [];
  let through = from;
  for (const r of rows) {
    if (!seen.has(r.memory_id) && seen.size >= limit) break;
    through = Number(r.seq);
    if (seen.has(r.memory_id)) continue;
    seen.add(r.memory_id);
    const c = changeFor(ctx, r.memory_id);
    if (c === 'secret') heldBack.push(r.memory_id);
    else if (c !== 'none') changes.push(c);
  }
  const latest = Number(ctx.store.get<{ seq: number }>('SELECT seq FROM change_seq WHERE id = 1')?.seq ?? 0);
  return { changes, through, heldBack, more: through < latest && rows.length > 0 };
}

/** Local changes not yet pushed: memories changed after the push cursor. */
export function waitingCount(store: Store): number {
  const from = readCursors(store).pushedThrough;
  return Number(
    store.get<{ n: number }>(
      "SELECT count(DISTINCT memory_id) AS n FROM memory_events WHERE seq > ? AND store = 'project' AND actor NOT LIKE 'team:%'",
      [from],
    )?.n ?? 0,
  );
}

function recordOutcomes(ctx: SyncContext, changes: OutgoingChange[], outcomes: PushOutcome[], report: SyncReport, cursor: number): void {
  const iso = (ctx.now ?? (() => new Date()))().toISOString();
  ctx.store.transaction((tx) => {
    for (const o of outcomes) {
      const ch = changes.find((c) => c.changeId === o.changeId)!;
      if (o.status === 'accepted' && o.seq > 0) {
        writeBase(tx, o.memoryId, { serverSeq: o.seq, stateHash: ch.stateHash, author: ctx.author, machine: ctx.machine });
        report.pushed++;
      } else if (o.status === 'stale') report.stale++;
      else if (o.status === 'duplicate') report.duplicates++;
    }
    writeCursors(tx, { pushedThrough: cursor, updatedAt: iso });
  });
}

/**
 * The first push to a server: every memory of the store, oldest first, in batches (the change
 * feed may not reach back to the oldest ones). The push cursor moves to where the feed stood
 * when the upload began only at the end; an upload cut short starts again and skips what the
 * server already acknowledged (its base hash matches).
 */
async function uploadAll(ctx: SyncContext, report: SyncReport): Promise<void> {
  const batch = ctx.batch ?? DEFAULT_BATCH;
  const startCursor = latestCursor(ctx.store);
  const total = Number(ctx.store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE project_id = ?', [ctx.projectId])!.n);
  let lastRid = 0;
  let done = 0;
  for (;;) {
    const rows = ctx.store.all<{ rid: number; id: string }>(
      'SELECT rid, id FROM memories WHERE rid > ? AND project_id = ? ORDER BY rid LIMIT ?',
      [lastRid, ctx.projectId, batch],
    );
    if (!rows.length) break;
    lastRid = Number(rows[rows.length - 1]!.rid);
    const changes: OutgoingChange[] = [];
    for (const r of rows) {
      const c = changeFor(ctx, r.id);
      if (c === 'secret') report.heldBack.push(r.id);
      else if (c !== 'none') changes.push(c);
    }
    const outcomes = await pushChanges(ctx.client, ctx.schema, ctx.machine, changes);
    recordOutcomes(ctx, changes, outcomes, report, readCursors(ctx.store).pushedThrough);
    done += rows.length;
    ctx.onProgress?.(done, total);
  }
  const iso = (ctx.now ?? (() => new Date()))().toISOString();
  ctx.store.transaction((tx) => writeCursors(tx, { pushedThrough: startCursor, uploadedAt: iso, updatedAt: iso }));
}

async function pushAll(ctx: SyncContext, report: SyncReport): Promise<void> {
  const batch = ctx.batch ?? DEFAULT_BATCH;
  for (;;) {
    const out = outgoing(ctx, batch);
    report.heldBack.push(...out.heldBack);
    const outcomes = await pushChanges(ctx.client, ctx.schema, ctx.machine, out.changes);
    recordOutcomes(ctx, out.changes, outcomes, report, out.through);
    if (!out.more) return;
  }
}

/**
 * Whether this store holds a live memory of its own person: one never shared, or shared by
 * `author`. Without one there is nothing a pulled memory could contradict that is theirs to review
 * (a new member catching up queues no decisions).
 */
function hasOwnMemories(ctx: SyncContext): boolean {
  return !!ctx.store.get(
    `SELECT 1 AS x FROM memories m LEFT JOIN team_memories t ON t.memory_id = m.id
     WHERE m.project_id = ? AND m.deleted_at IS NULL AND (t.author IS NULL OR t.author = ?) LIMIT 1`,
    [ctx.projectId, ctx.author],
  );
}

async function pullAll(ctx: SyncContext, report: SyncReport): Promise<void> {
  const batch = ctx.batch ?? DEFAULT_BATCH;
  const now = ctx.now ?? (() => new Date());
  const target: ApplyTarget = { projectId: ctx.projectId, machine: ctx.machine };
  if (ctx.reviewPulled && hasOwnMemories(ctx)) target.review = { author: ctx.author };
  // The next page is asked for before this one is applied: the server reads it while this machine
  // writes (a new member's catch-up is a hundred pages of 1,000). Its failure is seen when awaited.
  let next = pullChanges(ctx.client, ctx.schema, readCursors(ctx.store).pulledThrough, batch);
  for (;;) {
    const page = await next;
    report.serverLatest = page.latest;
    if (!page.changes.length) return;
    const last = page.changes[page.changes.length - 1]!.seq;
    const more = last < page.latest;
    if (more) {
      next = pullChanges(ctx.client, ctx.schema, last, batch);
      next.catch(() => undefined); // handled when awaited; a failed apply must not leave it unhandled
    }
    const iso = now().toISOString();
    ctx.store.transaction((tx) => {
      // Another pull may have applied part of this page meanwhile: the cursor is read again inside.
      const through = readCursors(tx).pulledThrough;
      target.page = readPage(tx, ctx.projectId, page.changes);
      for (const ch of page.changes) {
        if (ch.seq <= through) continue;
        const o: ApplyOutcome = applyServerChange(tx, target, ch, iso);
        if (o === 'applied' || o === 'conflict') report.pulled++;
        if (o === 'conflict') report.conflicts++;
      }
      writeCursors(tx, { pulledThrough: Math.max(through, last), updatedAt: iso });
    });
    if (!more) return;
  }
}

/** Push, then pull; a stale push is pulled (as a conflict) in the same round. */
export async function syncOnce(ctx: SyncContext): Promise<SyncReport> {
  const report: SyncReport = { pushed: 0, pulled: 0, conflicts: 0, stale: 0, duplicates: 0, heldBack: [], waiting: 0, serverLatest: 0 };
  if (!readCursors(ctx.store).uploadedAt) await uploadAll(ctx, report);
  await pushAll(ctx, report);
  await pullAll(ctx, report);
  report.waiting = waitingCount(ctx.store);
  return report;
}
