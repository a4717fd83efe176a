/**
 * The team memory methods and events of the engine protocol (protocol.ts includes them):
 * connecting the project to a PostgreSQL server, its sync state, a sync now, the open
 * conflicts, disconnecting (docs/team.md). Only plain data crosses; never a password back.
 */
import type { TeamStatus } from '../core/team/syncTask';
import type { SyncReport } from '../core/team/sync';
import type { SharedMemory } from '../core/team/types';

export type { TeamStatus, SyncReport as TeamSyncReport };

/** team.status: not connected, or the sync's state. */
export type TeamOverview = { connected: false } | ({ connected: true } & TeamStatus);

export interface TeamConnectParams {
  host: string;
  port?: number;
  database?: string;
  user: string;
  /**
   * Kept in the keychain (or a file only the user can read), never in agent.yaml. Absent: the
   * one kept already, or AGENT_MEMORY_TEAM_PASSWORD.
   */
  password?: string;
  schema?: string;
  tls?: 'verify-full' | 'disable';
  caFile?: string;
  /** A client certificate (PEM file) to sign in with (TLS only). */
  certFile?: string;
  /** Its private key (PEM text): kept in the keychain like the password, never in agent.yaml. */
  clientKey?: string;
  author?: string;
}

export interface TeamConflictInfo {
  id: string;
  memoryId: string;
  /** Who pushed the version that won. */
  serverAuthor: string | null;
  /** The local version the server did not take. */
  local: SharedMemory;
  /** The version kept (the server's). */
  current: { title: string; content: string; deletedAt: string | null } | null;
  createdAt: string;
  /**
   * Set when this is not two versions of one memory but another person's memory that the
   * pipeline's decision found contradicting one of mine (docs/team.md "Contradicting facts"):
   * `local` is my memory, `current` theirs, `serverAuthor` who shared it. Keeping theirs retires
   * mine (a soft delete); keeping mine keeps both.
   */
  contradiction?: { theirMemoryId: string | null; reason: string };
}

export interface TeamMethods {
  'team.status': { params: Record<string, never>; result: TeamOverview };
  /** Tests the connection, makes the project's schema on the server, writes the settings to agent.yaml and uploads this store. */
  'team.connect': {
    params: TeamConnectParams;
    result: { status: TeamOverview; report: SyncReport; settingsFile: string; passwordKeptIn: string };
  };
  /** One round now: push what waits, pull what is new. */
  'team.sync': { params: Record<string, never>; result: { status: TeamOverview; report: SyncReport } };
  'team.conflicts': { params: Record<string, never>; result: TeamConflictInfo[] };
  /**
   * Settles a conflict: keep the server's version, or make mine the current one again (pushed as a
   * new version); for a contradiction, keeping theirs retires mine and keeping mine keeps both.
   */
  'team.resolve': { params: { id: string; keep: 'server' | 'mine' }; result: { resolved: boolean } };
  /** Stops syncing: the team settings leave agent.yaml and the password is forgotten; the local memory stays as it is. */
  'team.disconnect': { params: Record<string, never>; result: { disconnected: boolean; settingsFile?: string } };
}

export const TEAM_READ_METHODS = ['team.status', 'team.conflicts'] as const;

export type TeamEvent = { type: 'team.status'; status: TeamOverview } | { type: 'team.progress'; done: number; total: number };
