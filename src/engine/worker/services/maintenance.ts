/**
 * Upkeep of both stores: snapshots (on request and by the snapshot policy: when idle, or on
 * log size / age thresholds, store.* settings), the full-text index rebuild, queueing memories
 * without a vector in the active space, and the expiry sweep.
 */
import { scanStoreForSecrets } from '../../../core/maintenance/secretScan';
import { errorMessage } from '../../../core/util/errors';
import type { EngineContext } from '../context';
import type { SecretScanReport, StoreName } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';

export class MaintenanceService {
  private snapshotting = false;

  constructor(private readonly ctx: EngineContext) {}

  /** Snapshots both stores now; returns the sequence numbers they cover. */
  async snapshotNow(): Promise<{ project: number; global: number }> {
    for (const rt of this.ctx.stores.writable()) await this.snapshot(rt);
    const { stores } = this.ctx;
    return { project: stores.project.stats().snapshotSeq, global: stores.global.stats().snapshotSeq };
  }

  /** The snapshot policy; the stores it snapshotted. */
  async maybeSnapshot(nowMs = Date.now()): Promise<StoreName[]> {
    if (this.snapshotting || this.ctx.closed) return [];
    const s = this.ctx.config.store;
    const taken: StoreName[] = [];
    this.snapshotting = true;
    try {
      for (const rt of this.ctx.stores.writable()) {
        const st = rt.store.stats();
        const idle = st.seq > st.snapshotSeq && nowMs - this.ctx.stores.lastWriteAt(rt.name) >= s.snapshotIdleMs;
        if (idle || rt.store.snapshotDue({ logBytes: s.snapshotLogBytes, maxAgeMs: s.snapshotMaxAgeMs }, nowMs)) {
          await this.snapshot(rt);
          taken.push(rt.name);
        }
      }
    } catch (e) {
      this.ctx.warn(`snapshot failed (the operation log still holds every write): ${errorMessage(e)}`);
    } finally {
      this.snapshotting = false;
    }
    return taken;
  }

  /** Rebuilds the full-text index of both stores from the memories table; live memories indexed. */
  rebuildIndex(): number {
    let n = 0;
    for (const rt of this.ctx.stores.writable()) {
      this.ctx.write(rt, () => rt.store.transaction((tx) => tx.run(`INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')`)));
      n += Number(rt.store.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL')!.n);
    }
    this.ctx.changed('reindexed', [], 'both');
    return n;
  }

  /**
   * Embeds, in the background, every live memory that has no vector in the active embedding
   * space (imported, embedded by another model, failed before). Returns how many were queued.
   */
  reembed(): number {
    let n = 0;
    for (const rt of this.ctx.stores.writable()) n += this.ctx.write(rt, () => rt.queueMissingVectors());
    return n;
  }

  /** Runs the expiry sweep of both stores now; the ids it expired. */
  sweepExpired(): string[] {
    const out: string[] = [];
    for (const rt of this.ctx.stores.all()) {
      const ids = rt.sweepExpired();
      if (ids.length) this.ctx.changed('expired', ids, rt.name);
      out.push(...ids);
    }
    return out;
  }

  /**
   * Scan Memories for Secrets (docs/secrets.md): what each store holds; with `redact`, every
   * find is redacted (rows, history, indexes; vectors of changed texts re-made by the backfill)
   * and the store compacted so no file of it keeps the old text.
   */
  async scanSecrets(redact: boolean): Promise<SecretScanReport> {
    const report: SecretScanReport = { redact, stores: [] };
    for (const rt of redact ? this.ctx.stores.writable() : this.ctx.stores.all()) {
      const found = redact
        ? this.ctx.write(rt, () => scanStoreForSecrets(rt.store, { redact: true }))
        : scanStoreForSecrets(rt.store, { redact: false });
      const removedFiles = redact ? await rt.store.compactSecurely() : 0;
      if (found.reembed) rt.kickBackfill();
      if (redact && found.memoryIds.length) this.ctx.changed('updated', found.memoryIds, rt.name);
      report.stores.push({ store: rt.name, ...found, removedFiles });
    }
    return report;
  }

  private async snapshot(rt: StoreRuntime): Promise<void> {
    await rt.snapshot();
    this.ctx.emit({ type: 'snapshot', store: rt.name, seq: rt.store.stats().snapshotSeq });
  }
}
