/**
 * Contradicting facts from different people (docs/team.md "Contradicting facts"). With the
 * pipeline on, a memory someone else shared that is new here (or whose text they rewrote) is
 * queued, in the pull's transaction, for the pipeline's decision step (docs/pipeline.md
 * "Decisions") against this person's own memories: those never shared, or last shared by them.
 * ADD and NONE keep both memories (recorded in the audit). An UPDATE or DELETE would change
 * another person's memory by what a third wrote: it never applies by itself, whatever the
 * pipeline's mode, but waits as a review (pipeline_reviews) that shows both authors. Approving
 * retires this person's memory in favour of the other's (a soft delete, restorable, shared like
 * any delete); rejecting keeps both. The model call happens outside any transaction; the
 * outcome is written in one.
 */
import type { Store, Tx } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { MemoryRecord } from '../memory/types';
import { rowToRecord } from '../memory/rows';
import type { Job } from '../jobs/queue';
import type { JobContext } from '../jobs/worker';
import { TransientJobError } from '../jobs/errors';
import { isTransientLlmError, type LlmProvider } from '../llm/types';
import { errorMessage } from '../util/errors';
import { runShadowDecisions, type FindCandidates, type Proposal } from '../pipeline/decision';
import { FACT_TYPES, type FactType } from '../pipeline/extraction';
import { insertReview, approveReview, rejectReview } from '../pipeline/reviews';
import { writeProposalAudit } from '../pipeline/audit';
import { readBase } from './localState';
import { sharedOf } from './payload';
import type { SharedMemory } from './types';

export interface TeamReviewSettings {
  /** The pipeline's mode: in shadow mode the decision is only recorded. */
  mode: 'shadow' | 'controlled' | 'full';
  extractionTimeoutMs: number;
}

export interface TeamReviewDeps {
  store: Store;
  memory: MemoryService;
  llm: LlmProvider;
  findCandidates: FindCandidates;
  settings: () => TeamReviewSettings;
  now: () => Date;
}

export interface TeamReviewResult {
  skipped?: string;
  action?: Proposal['action'];
  targetId?: string;
  reviewIds: string[];
  llmCalls: number;
  warnings: string[];
}

/** Who is on each side, kept in the decision's audit row (the review's `history_id`). */
interface TeamSides {
  /** Who shared the memory that came in, and from which machine. */
  author: string;
  machine: string | null;
  /** This store's person. */
  me: string;
}

/** A memory of this store's person: never shared, or last shared by them. */
function isOwn(store: Store, id: string, me: string): boolean {
  const b = readBase(store, id);
  return !b || b.author === null || b.author === me;
}

function sidesOf(job: Job): TeamSides | undefined {
  const { author, machine, me } = job.payload;
  if (typeof author !== 'string' || typeof me !== 'string') return undefined;
  return { author, machine: typeof machine === 'string' ? machine : null, me };
}

function factTypeOf(m: MemoryRecord): FactType {
  return (FACT_TYPES as readonly string[]).includes(m.type) ? (m.type as FactType) : 'fact';
}

function rethrow(e: unknown): never {
  if (isTransientLlmError(e)) throw new TransientJobError(errorMessage(e), { cause: e });
  throw e;
}

/** The sentence a review of another person's memory carries (shown with it). */
export function contradictionSentence(author: string, action: Proposal['action']): string {
  return action === 'UPDATE'
    ? `${author} shared a newer version of what this memory says`
    : `${author} shared a memory that says otherwise`;
}

/** One decision on a memory someone else shared. */
interface Decided {
  src: MemoryRecord;
  sides: TeamSides;
  p: Proposal;
}

function writeOutcome(tx: Tx, d: Decided, deps: TeamReviewDeps, iso: string): string | undefined {
  const { src, sides, p } = d;
  const destructive = (p.action === 'UPDATE' || p.action === 'DELETE') && p.targetId !== undefined;
  // The target may have changed hands or gone since the decision started.
  const live = destructive && !!tx.get('SELECT 1 AS x FROM memories WHERE id = ? AND deleted_at IS NULL', [p.targetId!]);
  const review = destructive && live && deps.settings().mode !== 'shadow' && isOwn(deps.store, p.targetId!, sides.me);
  const outcome = review ? 'review' : deps.settings().mode === 'shadow' ? 'shadow' : 'recorded';
  const auditId = writeProposalAudit(tx, {
    sourceMemoryId: src.id,
    action: p.action,
    outcome,
    factContent: p.fact.content,
    reason: p.reason,
    createdAt: iso,
    metadata: { team: sides, targetId: p.targetId ?? null, confidence: p.confidence, usedLlm: p.usedLlm, candidates: p.candidates },
  });
  if (!review) return undefined;
  // Approving retires this person's memory for the other's (which stays): a DELETE for either decision.
  return insertReview(
    tx,
    { ...p, action: 'DELETE' },
    { historyId: auditId, sourceMemoryId: src.id, conflict: contradictionSentence(sides.author, p.action), iso },
  );
}

/** The `team_review` job's handler (registered with the pipeline's extraction worker). */
export function createTeamReviewHandler(deps: TeamReviewDeps) {
  return async (job: Job, ctx: JobContext): Promise<TeamReviewResult> => {
    const result: TeamReviewResult = { reviewIds: [], llmCalls: 0, warnings: [] };
    const src = job.memoryId ? deps.memory.get(job.memoryId) : undefined;
    const sides = sidesOf(job);
    if (!src) return { ...result, skipped: 'memory_missing' };
    if (!sides) return { ...result, skipped: 'no_authors' };
    if (isOwn(deps.store, src.id, sides.me)) return { ...result, skipped: 'now_own' }; // edited here since
    const own: FindCandidates = async (text, limit) =>
      (await deps.findCandidates(text, limit + 20)).filter((c) => c.id !== src.id && isOwn(deps.store, c.id, sides.me)).slice(0, limit);
    const fact = { content: src.content, type: factTypeOf(src), confidence: 1 };
    const s = deps.settings();
    const run = await runShadowDecisions(deps.llm, [fact], own, { timeoutMs: s.extractionTimeoutMs, signal: ctx.signal }).catch(rethrow);
    result.llmCalls = run.llmCalls;
    result.warnings.push(...run.warnings);
    const p = run.proposals[0];
    if (!p) return result;
    result.action = p.action;
    if (p.targetId) result.targetId = p.targetId;
    const iso = deps.now().toISOString();
    const reviewId = deps.store.transaction((tx) => writeOutcome(tx, { src, sides, p }, deps, iso));
    if (reviewId) result.reviewIds.push(reviewId);
    return result;
  };
}

/** A review waiting on this person: their memory, and the other person's that contradicts it. */
export interface Contradiction {
  id: string;
  /** This person's memory (approving retires it). */
  memoryId: string;
  mine: SharedMemory | null;
  /** The memory the other person shared. */
  theirMemoryId: string | null;
  theirs: { title: string; content: string; deletedAt: string | null } | null;
  author: string;
  machine: string | null;
  me: string;
  reason: string;
  createdAt: string;
}

/** The pending reviews made from other people's memories, oldest first. */
export function openContradictions(store: Store): Contradiction[] {
  const rows = store.all<{
    id: string;
    target_id: string;
    source_memory_id: string | null;
    reason: string;
    created_at: string;
    metadata_json: string | null;
  }>(
    `SELECT r.id, r.target_id, r.source_memory_id, r.reason, r.created_at, h.metadata_json
     FROM pipeline_reviews r JOIN memory_history h ON h.id = r.history_id
     WHERE r.status = 'pending' ORDER BY r.created_at, r.rowid`,
  );
  const out: Contradiction[] = [];
  const memoryOf = (id: string | null) => (id ? store.get('SELECT * FROM memories WHERE id = ?', [id]) : undefined);
  for (const r of rows) {
    const team = (JSON.parse(String(r.metadata_json ?? '{}')) as { team?: TeamSides }).team;
    if (!team) continue;
    const mine = memoryOf(String(r.target_id));
    const theirs = memoryOf(r.source_memory_id);
    out.push({
      id: String(r.id),
      memoryId: String(r.target_id),
      mine: mine ? sharedOf(rowToRecord(mine)) : null,
      theirMemoryId: r.source_memory_id,
      theirs: theirs
        ? { title: String(theirs.title ?? ''), content: String(theirs.content), deletedAt: (theirs.deleted_at as string | null) ?? null }
        : null,
      author: team.author,
      machine: team.machine,
      me: team.me,
      reason: String(r.reason),
      createdAt: String(r.created_at),
    });
  }
  return out;
}

/**
 * Settles one: `theirs` retires this person's memory for the other's (the review approved),
 * `mine` keeps both (rejected). Returns the memory that changed, if one did.
 */
export function settleContradiction(
  store: Store,
  memory: MemoryService,
  id: string,
  keep: 'theirs' | 'mine',
  opts: { now?: Date } = {},
): { status: 'deleted' | 'kept' | 'stale'; memoryId: string } {
  const c = openContradictions(store).find((x) => x.id === id);
  if (!c) throw new Error(`no open contradiction ${id}`);
  if (keep === 'mine') {
    rejectReview(store, id, { who: 'user', ...(opts.now ? { now: opts.now } : {}) });
    return { status: 'kept', memoryId: c.memoryId };
  }
  const r = approveReview(store, memory, id, { who: 'user', ...(opts.now ? { now: opts.now } : {}) });
  return { status: r.status === 'deleted' ? 'deleted' : 'stale', memoryId: c.memoryId };
}
