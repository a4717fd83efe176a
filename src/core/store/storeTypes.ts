/** The Store's public types and errors (see store.ts). */
import type { StoreFs } from './storeFs';
import type { SqlValue } from './opCodec';
import { UserFacingError } from '../util/errors';
import type { VerifiedBy } from './snapshotFiles';
import type { UserKey, UserKeyring } from '../crypto/userKeys';

export type Row = Record<string, SqlValue>;
export type Params = SqlValue[];

export interface StoreOptions {
  dir: string;
  migrationsDir?: string;
  sqlWasmPath?: string;
  /** Who holds the lock, for the message a second process sees. */
  purpose?: string;
  /** Called for recoverable problems (dropped log tail, fallback snapshot): once per distinct problem. */
  onWarning?: (message: string) => void;
  /** Called when health() changes. */
  onHealthChange?: (health: StoreHealth) => void;
  /** Read-only: no lock, no writes, no snapshots (a second window on the same store). */
  readOnly?: boolean;
  /** Why it is read-only, for health() and the error a write gets (e.g. "another VS Code window owns it"). */
  readOnlyReason?: string;
  /**
   * FTS4 tables whose index segments are merged in the background every `every` write
   * transactions (default: memories_fts, memories_exact and chunks_fts every 64; false disables). Each committed write adds
   * a segment and FTS4 only merges 16 at a time, so a store that takes single writes keeps
   * ~40 segments, and every term lookup seeks all of them: the near-duplicate check was 18×
   * slower at 40 segments than at 1.
   */
  ftsMerge?: { tables: string[]; every: number } | false;
  /**
   * Capacity reserved for the in-memory database file, given its size (default reserveFor in
   * liveFile.ts: 2× and at least +256 MiB; reserved address space costs no memory until used).
   */
  fileReserve?: (size: number) => number;
  /** The file operations of the log and snapshot writes (tests inject faults here). */
  fs?: StoreFs;
  /** First retry after writes were paused by a disk error (doubles up to 30 s). Default 1000 ms. */
  recoveryIntervalMs?: number;
  /** Where the user keys that open encrypted stores are found (docs/encryption.md). */
  keys?: UserKeyring;
  /** A new store is created encrypted under the key this returns (undefined: plain). */
  newStoreKey?: () => UserKey | undefined;
}

export interface SnapshotPolicy {
  /** Snapshot when the active log segment is at least this big. */
  logBytes: number;
  /** …or when the oldest unsnapshotted write is older than this. */
  maxAgeMs: number;
}

export interface StoreStats {
  seq: number;
  snapshotSeq: number;
  logBytes: number;
  snapshotBytes: number;
  schemaVersion: number;
  openMs: number;
  replayedRecords: number;
  /**
   * How the loaded snapshot was verified on open: its checksum sidecar, a full integrity_check
   * (no snapshot matched a checksum: loaded with a warning), or there was none.
   */
  snapshotVerifiedBy: VerifiedBy;
  /** How the last snapshot got the database's bytes: written from the live file, or a full export() copy. */
  lastSnapshotFrom: 'live-file' | 'export' | undefined;
}

export class StoreCorruptError extends UserFacingError {
  constructor(message: string) {
    super(message, 'store_corrupt');
  }
}

export class SchemaTooNewError extends UserFacingError {
  constructor(found: number, known: number) {
    super(
      `This memory store uses schema version ${found}, written by a newer version of Agent Memory; ` +
        `this version knows schema versions up to ${known}. Update the extension to open it.`,
      'schema_too_new',
    );
  }
}

/** The write handle passed to a transaction body. */
export interface Tx {
  run(sql: string, params?: Params): void;
  /** Rows changed by the last run(). */
  changes(): number;
  get<T = Row>(sql: string, params?: Params): T | undefined;
  all<T = Row>(sql: string, params?: Params): T[];
}

/** Why writes are paused and what re-establishes a durable state. */
export interface WriteBlock {
  code: 'disk_full' | 'io_error';
  detail: string;
  /** The log's state on disk is unknown or its tail could not be cut: a verified snapshot first. */
  needsSnapshot: boolean;
  /** Opened read-only because the disk was full at open: take the lock and catch up with the log. */
  needsWriter: boolean;
}

/** What a store can do now (docs/durability.md "Health"). */
export type StoreHealthState = 'ok' | 'disk_full' | 'io_error' | 'read_only';

export interface StoreHealth {
  state: StoreHealthState;
  /** One sentence for people: what is wrong, what still works, what to do. */
  detail: string;
  /** When this state began (ISO time). */
  since: string;
}
