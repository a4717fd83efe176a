/** The shapes exchanged with a team server (docs/team.md). */

/**
 * The fields of a memory that are shared through the server: everything a person wrote or
 * decided, nothing machine-local (row number, vector, access counts).
 */
export interface SharedMemory {
  id: string;
  type: string;
  title: string;
  content: string;
  summary: string | null;
  contentHash: string;
  tags: string[];
  importance: number;
  source: string | null;
  agentSource: string | null;
  who: string | null;
  why: string | null;
  ttlSeconds: number | null;
  expiresAt: string | null;
  decisions: string[];
  rationale: string[];
  metadata: Record<string, unknown>;
  mergedFrom: string[];
  replacedBy: string | null;
  retentionStatus: string;
  deletedAt: string | null;
  deletedBy: string | null;
  deleteReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One change pushed to the server: the memory's state after it, and the server version it was based on. */
export interface OutgoingChange {
  /** Made from the machine, memory, base and state: the same change sent again has the same id, and the server stores it once. */
  changeId: string;
  memoryId: string;
  /** The server sequence number of the version this change was made on (0: the server has never had this memory). */
  baseSeq: number;
  stateHash: string;
  memory: SharedMemory;
  author: string;
}

/** What the server did with one pushed change. */
export type PushOutcome =
  | { changeId: string; memoryId: string; status: 'accepted'; seq: number }
  /** The server has a newer version than the base: pull it; the local one becomes a conflict. */
  | { changeId: string; memoryId: string; status: 'stale'; headSeq: number }
  /** A new memory whose content another live memory on the server already has. */
  | { changeId: string; memoryId: string; status: 'duplicate'; of: string };

/** One change as the server ordered it. */
export interface ServerChange {
  seq: number;
  changeId: string;
  memoryId: string;
  baseSeq: number;
  stateHash: string;
  memory: SharedMemory;
  author: string;
  machine: string;
  at: string;
}

export interface ServerPage {
  changes: ServerChange[];
  /** The server's newest sequence number. */
  latest: number;
}
