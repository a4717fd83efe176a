/**
 * Retention of the change feed and the webhook outbox (docs/changes.md): events and finished
 * deliveries (delivered, dead, cancelled) older than the history window go, oldest first, in
 * batches. Pending deliveries stay until they are delivered or die. change_seq.purged_through
 * remembers the highest cursor removed, so a reader behind it is told it missed events.
 */
import type { Tx } from '../store/store';

export function purgeOldEvents(tx: Tx, cutoff: string, batch: number): number {
  const rows = tx.all<{ seq: number }>('SELECT seq FROM memory_events WHERE created_at < ? ORDER BY seq LIMIT ?', [cutoff, batch]);
  if (!rows.length) return 0;
  const high = Number(rows[rows.length - 1]!.seq);
  tx.run('DELETE FROM memory_events WHERE seq IN (SELECT seq FROM memory_events WHERE created_at < ? ORDER BY seq LIMIT ?)', [
    cutoff,
    batch,
  ]);
  const n = tx.changes();
  tx.run('UPDATE change_seq SET purged_through = max(purged_through, ?) WHERE id = 1', [high]);
  return n;
}

export function purgeFinishedDeliveries(tx: Tx, cutoff: string, batch: number): number {
  tx.run(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ? ORDER BY created_at LIMIT ?)`,
    [cutoff, batch],
  );
  return tx.changes();
}
