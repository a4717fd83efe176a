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

type HeadRow = { seq: string; content_hash: string; deleted: boolean };

async function pushOne(c: ClientBase, s: string, ch: OutgoingChange, machine: string, next: () => number): Promise<PushOutcome> {
  const base = { changeId: ch.changeId, memoryId: ch.memoryId };
  const known = await c.query<{ seq: string }>(`SELECT seq FROM ${s}.changes WHERE change_id = $1`, [ch.changeId]);
  if (known.rowCount) return { ...base, status: 'accepted', seq: Number(known.rows[0]!.seq) };
  const head = (await c.query<HeadRow>(`SELECT seq, content_hash, deleted FROM ${s}.heads WHERE memory_id = $1`, [ch.memoryId])).rows[0];
  const headSeq = head ? Number(head.seq) : 0;
  if (headSeq !== ch.baseSeq) return { ...base, status: 'stale', headSeq };
  const deleted = ch.memory.deletedAt !== null;
  if (!deleted && (!head || head.deleted || head.content_hash !== ch.memory.contentHash)) {
    const dup = await c.query<{ memory_id: string }>(
      `SELECT memory_id FROM ${s}.heads WHERE content_hash = $1 AND NOT deleted AND memory_id <> $2 LIMIT 1`,
      [ch.memory.contentHash, ch.memoryId],
    );
    if (dup.rowCount && !head) return { ...base, status: 'duplicate', of: dup.rows[0]!.memory_id };
  }
  const seq = next();
  await c.query(
    `INSERT INTO ${s}.changes (seq, change_id, memory_id, base_seq, state_hash, content_hash, deleted, memory, author, machine)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      seq,
      ch.changeId,
      ch.memoryId,
      ch.baseSeq,
      ch.stateHash,
      ch.memory.contentHash,
      deleted,
      JSON.stringify(ch.memory),
      ch.author,
      machine,
    ],
  );
  await c.query(
    `INSERT INTO ${s}.heads (memory_id, seq, content_hash, deleted) VALUES ($1, $2, $3, $4)
     ON CONFLICT (memory_id) DO UPDATE SET seq = EXCLUDED.seq, content_hash = EXCLUDED.content_hash, deleted = EXCLUDED.deleted`,
    [ch.memoryId, seq, ch.memory.contentHash, deleted],
  );
  return { ...base, status: 'accepted', seq };
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
    const out: PushOutcome[] = [];
    for (const ch of changes) out.push(await pushOne(c, s, ch, machine, () => ++seq));
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
