/**
 * The team sync of a project store as a background task (docs/team.md "Offline first"): the
 * engine's scheduler runs its steps, never a write. A local commit makes it due soon; otherwise
 * it pulls every `syncIntervalMs`. A step that cannot reach the server leaves the store as it is
 * (the local copy is the working copy), says "offline" with the reason, and tries again after
 * 1 s, doubling to 5 minutes. Steps never overlap: `syncNow` (the CLI's `team sync`) waits for
 * a step under way.
 */
import type pg from 'pg';
import type { Store } from '../store/store';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import { errorMessage } from '../util/errors';
import { plural } from '../text/plural';
import { clientConfig, newPgClient, serverLabel, type TeamSettings } from './connection';
import { openConflicts, readCursors, resetForServer, machineIdOf } from './localState';
import { ensureServerSchema } from './serverSchema';
import { openContradictions } from './review';
import { syncOnce, waitingCount, type SyncReport } from './sync';

export type TeamState = 'connecting' | 'synced' | 'waiting' | 'offline' | 'conflict';

export interface TeamStatus {
  state: TeamState;
  server: string;
  schema: string;
  author: string;
  machine: string;
  /** Memories changed here and not yet on the server. */
  waiting: number;
  /** Open conflicts (a local version the server did not take). */
  conflicts: number;
  lastSyncAt: string | null;
  /** Why the last attempt failed (offline). */
  lastError?: string;
  /** The last round's counts. */
  last?: SyncReport;
}

export interface TeamSyncOptions {
  store: Store;
  projectId: string;
  settings: TeamSettings;
  password: () => Promise<string | undefined>;
  /** The private key of the client certificate (settings.certFile), from the keychain. */
  clientKey?: () => Promise<string | undefined>;
  onStatus?: (s: TeamStatus) => void;
  onWarning?: (m: string) => void;
  /** The first upload's progress, whichever round makes it (a connect's, or one a reload started). */
  onProgress?: (done: number, total: number) => void;
  /** Whether the pipeline is on (read every round): memories from other people then go through its decision (review.ts). */
  reviewPulled?: () => boolean;
  now?: () => Date;
}

const MAX_BACKOFF_MS = 5 * 60_000;
const KICK_DELAY_MS = 200;

export class TeamSyncTask implements BackgroundTask {
  readonly name = 'team sync';
  private readonly wake = new WakeSignal();
  private client: pg.Client | undefined;
  private nextAt: number | undefined = dueAt(0);
  private failures = 0;
  private running: Promise<SyncReport> | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private lastError: string | undefined;
  private last: SyncReport | undefined;
  private saidHeldBack = '';
  readonly machine: string;

  constructor(private readonly opts: TeamSyncOptions) {
    this.machine = machineIdOf(opts.store, (fn) => opts.store.transaction(fn));
  }

  start(): void {
    this.unsubscribe = this.opts.store.onCommit(() => this.kick());
  }

  /** Stopped (its store runtime closed: a reload replaces the task). */
  isStopped(): boolean {
    return this.stopped;
  }

  /** A local change: push it soon (a failing server keeps its backoff). */
  kick(): void {
    if (this.stopped || this.failures > 0) return;
    const at = dueAt(KICK_DELAY_MS);
    if (this.nextAt === undefined || at < this.nextAt) this.nextAt = at;
    this.wake.fire();
  }

  dueInMs(): number | undefined {
    return this.stopped ? undefined : msUntil(this.nextAt);
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  async runStep(): Promise<void> {
    await this.syncNow().catch(() => undefined);
  }

  /** One round now (after any round under way); throws `team_unreachable` with the reason when the server cannot be reached. */
  async syncNow(onProgress?: (done: number, total: number) => void): Promise<SyncReport> {
    while (this.running) await this.running.catch(() => undefined);
    const run = this.round(onProgress);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = undefined;
    }
  }

  private async round(onProgress?: (done: number, total: number) => void): Promise<SyncReport> {
    const s = this.opts.settings;
    this.nextAt = undefined;
    try {
      const client = await this.connected();
      const report = await syncOnce({
        store: this.opts.store,
        client,
        schema: s.schema,
        projectId: this.opts.projectId,
        machine: this.machine,
        author: s.author,
        reviewPulled: this.opts.reviewPulled?.() ?? false,
        ...(this.opts.now ? { now: this.opts.now } : {}),
        ...((onProgress ?? this.opts.onProgress) ? { onProgress: onProgress ?? this.opts.onProgress } : {}),
      });
      this.failures = 0;
      this.lastError = undefined;
      this.last = report;
      this.warnHeldBack(report.heldBack);
      return report;
    } catch (e) {
      this.failures++;
      this.lastError = errorMessage(e);
      await this.dropClient();
      throw e;
    } finally {
      if (!this.stopped) this.nextAt = dueAt(this.failures ? Math.min(1000 * 2 ** (this.failures - 1), MAX_BACKOFF_MS) : s.syncIntervalMs);
      this.opts.onStatus?.(this.status());
    }
  }

  private warnHeldBack(ids: string[]): void {
    const key = ids.join(',');
    if (!ids.length || key === this.saidHeldBack) return;
    this.saidHeldBack = key;
    this.opts.onWarning?.(
      ids.length === 1
        ? 'team memory: 1 memory holds a password, key or token, so it stays on this machine and is not shared. ' +
            'Remove the secret (Scan Memories for Secrets) to share it.'
        : `team memory: ${plural(ids.length, 'memory', 'memories')} hold a password, key or token, so they stay on this machine ` +
            'and are not shared. Remove the secret (Scan Memories for Secrets) to share them.',
    );
  }

  private async connected(): Promise<pg.Client> {
    if (this.client) return this.client;
    const s = this.opts.settings;
    const client = await newPgClient(clientConfig(s, await this.opts.password(), await this.opts.clientKey?.()));
    // A dropped connection is an 'error' event: without a listener it would end the process.
    client.on('error', (e) => {
      this.lastError = errorMessage(e);
      if (this.client === client) this.client = undefined;
    });
    await client.connect();
    try {
      if (this.stopped) throw new Error('the sync stopped');
      const info = await ensureServerSchema(client, s.schema, this.opts.projectId);
      const store = this.opts.store;
      if (readCursors(store).serverId !== info.serverId)
        store.transaction((tx) => resetForServer(tx, info.serverId, new Date().toISOString()));
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    this.client = client;
    return client;
  }

  private async dropClient(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  status(): TeamStatus {
    const s = this.opts.settings;
    const store = this.opts.store;
    const waiting = waitingCount(store);
    const conflicts = openConflicts(store).length + openContradictions(store).length;
    const cursors = readCursors(store);
    let state: TeamState;
    if (this.lastError) state = 'offline';
    else if (!this.last && !cursors.uploadedAt) state = 'connecting';
    else if (conflicts) state = 'conflict';
    else state = waiting ? 'waiting' : 'synced';
    return {
      state,
      server: serverLabel(s),
      schema: s.schema,
      author: s.author,
      machine: this.machine,
      waiting,
      conflicts,
      lastSyncAt: cursors.updatedAt,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.last ? { last: this.last } : {}),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nextAt = undefined;
    this.unsubscribe?.();
    await this.dropClient(); // a query under way fails at once instead of holding the close
    await this.running?.catch(() => undefined);
    await this.dropClient(); // one a round was still opening: an open socket would keep the engine's thread alive
  }
}
