/**
 * What a store last exchanged with its team server (migration 0009_team_sync.sql): the push
 * cursor (of the store's own change feed), the pull cursor (the server's sequence), the server
 * version each memory is based on, and the open conflicts. Written only inside store
 * transactions, with every value bound from JS, so the op log replays it exactly.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import type { SqlDb } from '../store/sqlDb';
import type { Tx } from '../store/store';
import type { SharedBy } from '../memory/types';
import type { SharedMemory } from './types';

export interface SyncCursors {
  serverId: string | null;
  pushedThrough: number;
  pulledThrough: number;
  uploadedAt: string | null;
  updatedAt: string | null;
}

type Reader = Pick<SqlDb, 'get' | 'all'>;

export function readCursors(db: Reader): SyncCursors {
  const r = db.get<{
    server_id: string | null;
    pushed_through: number;
    pulled_through: number;
    uploaded_at: string | null;
    updated_at: string | null;
  }>('SELECT server_id, pushed_through, pulled_through, uploaded_at, updated_at FROM team_sync WHERE id = 1');
  return {
    serverId: r?.server_id ?? null,
    pushedThrough: Number(r?.pushed_through ?? 0),
    pulledThrough: Number(r?.pulled_through ?? 0),
    uploadedAt: r?.uploaded_at ?? null,
    updatedAt: r?.updated_at ?? null,
  };
}

export function writeCursors(tx: Tx, c: Partial<SyncCursors> & { updatedAt: string }): void {
  const cur = readCursors(tx);
  tx.run('UPDATE team_sync SET server_id = ?, pushed_through = ?, pulled_through = ?, uploaded_at = ?, updated_at = ? WHERE id = 1', [
    c.serverId === undefined ? cur.serverId : c.serverId,
    c.pushedThrough ?? cur.pushedThrough,
    c.pulledThrough ?? cur.pulledThrough,
    c.uploadedAt === undefined ? cur.uploadedAt : c.uploadedAt,
    c.updatedAt,
  ]);
}

/** Starts over with another server (a new schema, or the first connect): every memory is new to it. */
export function resetForServer(tx: Tx, serverId: string, iso: string): void {
  tx.run('DELETE FROM team_memories');
  tx.run('UPDATE team_sync SET server_id = ?, pushed_through = 0, pulled_through = 0, uploaded_at = NULL, updated_at = ? WHERE id = 1', [
    serverId,
    iso,
  ]);
}

export interface MemoryBase {
  serverSeq: number;
  stateHash: string;
  author: string | null;
  machine: string | null;
}

export function readBase(db: Reader, memoryId: string): MemoryBase | undefined {
  const r = db.get<{ server_seq: number; state_hash: string; author: string | null; machine: string | null }>(
    'SELECT server_seq, state_hash, author, machine FROM team_memories WHERE memory_id = ?',
    [memoryId],
  );
  return r ? { serverSeq: Number(r.server_seq), stateHash: String(r.state_hash), author: r.author, machine: r.machine } : undefined;
}

export function writeBase(tx: Tx, memoryId: string, b: MemoryBase): void {
  tx.run(
    `INSERT INTO team_memories (memory_id, server_seq, state_hash, author, machine) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (memory_id) DO UPDATE SET server_seq = excluded.server_seq, state_hash = excluded.state_hash,
       author = excluded.author, machine = excluded.machine`,
    [memoryId, b.serverSeq, b.stateHash, b.author, b.machine],
  );
}

/** Who made the server's version of each of `ids` that has one (the memory views show it). */
export function sharedByOf(db: Reader, ids: readonly string[]): Map<string, SharedBy> {
  const out = new Map<string, SharedBy>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const rows = db.all<{ memory_id: string; author: string | null; machine: string | null }>(
      `SELECT memory_id, author, machine FROM team_memories WHERE memory_id IN (${part.map(() => '?').join(', ')}) AND author IS NOT NULL`,
      part,
    );
    for (const r of rows) out.set(String(r.memory_id), { author: String(r.author), machine: r.machine });
  }
  return out;
}

export interface TeamConflict {
  id: string;
  memoryId: string;
  serverSeq: number;
  serverAuthor: string | null;
  local: SharedMemory;
  createdAt: string;
}

export function recordConflict(tx: Tx, c: TeamConflict): void {
  tx.run('INSERT INTO team_conflicts (id, memory_id, server_seq, server_author, local_json, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
    c.id,
    c.memoryId,
    c.serverSeq,
    c.serverAuthor,
    JSON.stringify(c.local),
    c.createdAt,
  ]);
}

export function openConflicts(db: Reader): TeamConflict[] {
  return db
    .all<{ id: string; memory_id: string; server_seq: number; server_author: string | null; local_json: string; created_at: string }>(
      'SELECT * FROM team_conflicts WHERE resolved_at IS NULL ORDER BY created_at, id',
    )
    .map((r) => ({
      id: String(r.id),
      memoryId: String(r.memory_id),
      serverSeq: Number(r.server_seq),
      serverAuthor: r.server_author,
      local: JSON.parse(String(r.local_json)) as SharedMemory,
      createdAt: String(r.created_at),
    }));
}

export function resolveConflictRow(tx: Tx, id: string, resolution: 'kept_server' | 'kept_mine', iso: string): boolean {
  const open = tx.get('SELECT 1 AS x FROM team_conflicts WHERE id = ? AND resolved_at IS NULL', [id]);
  if (!open) return false;
  tx.run('UPDATE team_conflicts SET resolved_at = ?, resolution = ? WHERE id = ?', [iso, resolution, id]);
  return true;
}

/** This store copy's name on the server: the host name and a random part made once and kept in store_meta. */
export function machineIdOf(db: Reader, transaction: (fn: (tx: Tx) => void) => void): string {
  const have = db.get<{ value: string }>("SELECT value FROM store_meta WHERE key = 'team_machine'");
  if (have) return String(have.value);
  const id = `${os.hostname()}/${randomUUID().slice(0, 8)}`;
  transaction((tx) => tx.run("INSERT OR IGNORE INTO store_meta (key, value) VALUES ('team_machine', ?)", [id]));
  return String(db.get<{ value: string }>("SELECT value FROM store_meta WHERE key = 'team_machine'")!.value);
}
