/**
 * Push and pull against the team server (docs/team.md "Replication"). A push is one server
 * transaction that takes the project's counter row first, so pushes are ordered one after the
 * other and sequence numbers are given without gaps in commit order: a client that pulled
 * through N never misses a change numbered below N committed later. Each change carries the
 * server version it was made on; one whose base is not the memory's head is refused as stale
 * (optimistic concurrency). A change id the server already has is answered as before (a push
 * sent again after a lost answer stores nothing twice).
 */
import type { ClientBase } from 'pg';
import { checkedSchema } from './serverSchema';
import type { OutgoingChange, PushOutcome, ServerChange, ServerPage, SharedMemory } from './types';

type Head = { seq: number; contentHash: string; deleted: boolean };

/** What the server holds for a batch, read in three queries (not three per change). */
interface BatchState {
  known: Map<string, number>;
  heads: Map<string, Head>;
  /** content hash → a live memory with it. */
  live: Map<string, string>;
}

async function readBatchState(c: ClientBase, s: string, changes: readonly OutgoingChange[]): Promise<BatchState> {
  const known = await c.query<{ change_id: string; seq: string }>(`SELECT change_id, seq FROM ${s}.changes WHERE change_id = ANY($1)`, [
    changes.map((x) => x.changeId),
  ]);
  const heads = await c.query<{ memory_id: string; seq: string; content_hash: string; deleted: boolean }>(
    `SELECT memory_id, seq, content_hash, deleted FROM ${s}.heads WHERE memory_id = ANY($1)`,
    [changes.map((x) => x.memoryId)],
  );
  const live = await c.query<{ memory_id: string; content_hash: string }>(
    `SELECT memory_id, content_hash FROM ${s}.heads WHERE content_hash = ANY($1) AND NOT deleted`,
    [changes.map((x) => x.memory.contentHash)],
  );
  return {
    known: new Map(known.rows.map((r) => [r.change_id, Number(r.seq)])),
    heads: new Map(heads.rows.map((r) => [r.memory_id, { seq: Number(r.seq), contentHash: r.content_hash, deleted: r.deleted }])),
    live: new Map(live.rows.map((r) => [r.content_hash, r.memory_id])),
  };
}

/** The outcome of one change against the batch's state (updated as the batch's changes are taken). */
function decide(st: BatchState, ch: OutgoingChange, next: () => number): PushOutcome {
  const base = { changeId: ch.changeId, memoryId: ch.memoryId };
  const known = st.known.get(ch.changeId);
  if (known !== undefined) return { ...base, status: 'accepted', seq: known };
  const head = st.heads.get(ch.memoryId);
  const headSeq = head?.seq ?? 0;
  if (headSeq !== ch.baseSeq) return { ...base, status: 'stale', headSeq };
  const deleted = ch.memory.deletedAt !== null;
  const twin = st.live.get(ch.memory.contentHash);
  if (!head && !deleted && twin !== undefined && twin !== ch.memoryId) return { ...base, status: 'duplicate', of: twin };
  const seq = next();
  if (head && !head.deleted && st.live.get(head.contentHash) === ch.memoryId) st.live.delete(head.contentHash);
  st.heads.set(ch.memoryId, { seq, contentHash: ch.memory.contentHash, deleted });
  if (!deleted) st.live.set(ch.memory.contentHash, ch.memoryId);
  st.known.set(ch.changeId, seq);
  return { ...base, status: 'accepted', seq };
}

async function insertTaken(c: ClientBase, s: string, machine: string, taken: { ch: OutgoingChange; seq: number }[]): Promise<void> {
  if (!taken.length) return;
  const col = <T>(f: (t: { ch: OutgoingChange; seq: number }) => T): T[] => taken.map(f);
  await c.query(
    `INSERT INTO ${s}.changes (seq, change_id, memory_id, base_seq, state_hash, content_hash, deleted, memory, author, machine)
     SELECT seq, change_id, memory_id, base_seq, state_hash, content_hash, deleted, memory::jsonb, author, $10
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[])
       AS t(seq, change_id, memory_id, base_seq, state_hash, content_hash, deleted, memory, author)`,
    [
      col((t) => t.seq),
      col((t) => t.ch.changeId),
      col((t) => t.ch.memoryId),
      col((t) => t.ch.baseSeq),
      col((t) => t.ch.stateHash),
      col((t) => t.ch.memory.contentHash),
      col((t) => t.ch.memory.deletedAt !== null),
      col((t) => JSON.stringify(t.ch.memory)),
      col((t) => t.ch.author),
      machine,
    ],
  );
  // The newest change of each memory is its head (a batch holds one change per memory, but be sure).
  const last = new Map<string, { ch: OutgoingChange; seq: number }>();
  for (const t of taken) last.set(t.ch.memoryId, t);
  const heads = [...last.values()];
  await c.query(
    `INSERT INTO ${s}.heads (memory_id, seq, content_hash, deleted)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::boolean[])
     ON CONFLICT (memory_id) DO UPDATE SET seq = EXCLUDED.seq, content_hash = EXCLUDED.content_hash, deleted = EXCLUDED.deleted`,
    [
      heads.map((t) => t.ch.memoryId),
      heads.map((t) => t.seq),
      heads.map((t) => t.ch.memory.contentHash),
      heads.map((t) => t.ch.memory.deletedAt !== null),
    ],
  );
}

/** Pushes `changes` in one server transaction; one outcome per change, in order. */
export async function pushChanges(
  c: ClientBase,
  schema: string,
  machine: string,
  changes: readonly OutgoingChange[],
): Promise<PushOutcome[]> {
  const s = checkedSchema(schema);
  if (!changes.length) return [];
  await c.query('BEGIN');
  try {
    let seq = Number((await c.query<{ seq: string }>(`SELECT seq FROM ${s}.counter WHERE id = 1 FOR UPDATE`)).rows[0]!.seq);
    const st = await readBatchState(c, s, changes);
    const taken: { ch: OutgoingChange; seq: number }[] = [];
    const out = changes.map((ch) => {
      const before = seq;
      const o = decide(st, ch, () => ++seq);
      if (seq !== before && o.status === 'accepted') taken.push({ ch, seq: o.seq });
      return o;
    });
    await insertTaken(c, s, machine, taken);
    await c.query(`UPDATE ${s}.counter SET seq = $1 WHERE id = 1`, [seq]);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

type ChangeRow = {
  seq: string;
  change_id: string;
  memory_id: string;
  base_seq: string;
  state_hash: string;
  memory: SharedMemory;
  author: string;
  machine: string;
  created_at: Date;
};

/** The changes after `after`, in the server's order, at most `limit`. */
export async function pullChanges(c: ClientBase, schema: string, after: number, limit: number): Promise<ServerPage> {
  const s = checkedSchema(schema);
  const rows = await c.query<ChangeRow>(
    `SELECT seq, change_id, memory_id, base_seq, state_hash, memory, author, machine, created_at FROM ${s}.changes WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [after, limit],
  );
  const latest = Number((await c.query<{ seq: string }>(`SELECT seq FROM ${s}.counter WHERE id = 1`)).rows[0]!.seq);
  return {
    latest,
    changes: rows.rows.map((r): ServerChange => ({
      seq: Number(r.seq),
      changeId: r.change_id,
      memoryId: r.memory_id,
      baseSeq: Number(r.base_seq),
      stateHash: r.state_hash,
      memory: r.memory,
      author: r.author,
      machine: r.machine,
      at: r.created_at.toISOString(),
    })),
  };
}
