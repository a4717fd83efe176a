/**
 * The webhook outbox (docs/changes.md "Webhooks"): the webhooks table mirrors the configured
 * webhooks that have a signing secret, and every change queues one webhook_deliveries row per
 * subscribed webhook in the change's own transaction, so a delivery is durable exactly when its
 * change is. The store's owner sends them (src/core/webhooks); the rows say how each went.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';
import type { SqlDb } from '../store/sqlDb';
import type { ChangeEvent, ChangeType, Delivery, DeliveryStatus } from './types';

export type { Delivery, DeliveryStatus } from './types';

/** A webhook as the outbox knows it: its name, where deliveries go, which changes it wants ([] = all). */
export interface WebhookTarget {
  name: string;
  url: string;
  events: readonly ChangeType[];
}

export type DeliveryRow = {
  id: string;
  webhook: string;
  event_seq: number | null;
  event_type: string;
  payload_json: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
};

export function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: String(r.id),
    webhook: String(r.webhook),
    cursor: r.event_seq === null ? null : Number(r.event_seq),
    eventType: String(r.event_type),
    event: JSON.parse(String(r.payload_json)) as Record<string, unknown>,
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: String(r.next_attempt_at),
    lastAttemptAt: r.last_attempt_at === null ? null : String(r.last_attempt_at),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error === null ? null : String(r.last_error),
    deliveredAt: r.delivered_at === null ? null : String(r.delivered_at),
    createdAt: String(r.created_at),
  };
}

/** Whether a webhook subscribed to these types wants `type` ([] = every change). */
export function wants(events: readonly string[], type: string): boolean {
  return events.length === 0 || events.includes(type);
}

/** Queues the deliveries of `event` (inside the change's transaction). */
export function queueDeliveries(tx: Tx, event: ChangeEvent): number {
  const hooks = tx.all<{ name: string; events_json: string }>('SELECT name, events_json FROM webhooks ORDER BY name');
  let queued = 0;
  for (const h of hooks) {
    if (!wants(JSON.parse(String(h.events_json)) as string[], event.type)) continue;
    tx.run(
      `INSERT INTO webhook_deliveries (id, webhook, event_seq, event_type, payload_json, status, attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
      [randomUUID(), String(h.name), event.cursor, event.type, JSON.stringify(event), event.at, event.at],
    );
    queued++;
  }
  return queued;
}

/**
 * Makes the webhooks table equal to `targets` (the owner calls it when the configuration or a
 * secret changes). Writes nothing when they already match (no op-log record per reload). A
 * webhook that is gone has its pending deliveries cancelled, with the reason. Returns whether
 * anything changed.
 */
export function syncWebhooks(
  db: Pick<SqlDb, 'all'> & { transaction<T>(fn: (tx: Tx) => T): T },
  targets: readonly WebhookTarget[],
  iso: string,
): boolean {
  const current = new Map(
    db
      .all<{ name: string; url: string; events_json: string }>('SELECT name, url, events_json FROM webhooks')
      .map((r) => [String(r.name), { url: String(r.url), events: String(r.events_json) }]),
  );
  const wanted = new Map(targets.map((t) => [t.name, { url: t.url, events: JSON.stringify([...t.events].sort()) }]));
  const changed = [...wanted].filter(([name, w]) => current.get(name)?.url !== w.url || current.get(name)?.events !== w.events);
  const removed = [...current.keys()].filter((name) => !wanted.has(name));
  if (!changed.length && !removed.length) return false;
  db.transaction((tx) => {
    for (const [name, w] of changed) {
      tx.run('INSERT OR REPLACE INTO webhooks (name, url, events_json, updated_at) VALUES (?, ?, ?, ?)', [name, w.url, w.events, iso]);
    }
    for (const name of removed) {
      tx.run('DELETE FROM webhooks WHERE name = ?', [name]);
      tx.run(`UPDATE webhook_deliveries SET status = 'cancelled', last_error = ? WHERE webhook = ? AND status = 'pending'`, [
        'the webhook was removed from the configuration, or its signing secret was deleted',
        name,
      ]);
    }
  });
  return true;
}

/** The webhooks deliveries go to now. */
export function activeWebhooks(db: Pick<SqlDb, 'all'>): WebhookTarget[] {
  return db
    .all<{ name: string; url: string; events_json: string }>('SELECT name, url, events_json FROM webhooks ORDER BY name')
    .map((r) => ({
      name: String(r.name),
      url: String(r.url),
      events: JSON.parse(String(r.events_json)) as ChangeType[],
    }));
}

/** Each webhook's next delivery in the feed's order (the head of its queue), pending only. */
export function queueHeads(db: Pick<SqlDb, 'all'>): Delivery[] {
  return db
    .all<DeliveryRow>(
      `SELECT d.* FROM webhook_deliveries d JOIN webhooks w ON w.name = d.webhook
        WHERE d.status = 'pending' AND d.rowid = (
          SELECT d2.rowid FROM webhook_deliveries d2 WHERE d2.webhook = d.webhook AND d2.status = 'pending'
           ORDER BY d2.event_seq, d2.created_at, d2.rowid LIMIT 1)`,
    )
    .map(toDelivery);
}

/** Recent deliveries, newest first (optionally of one webhook, or only those that failed). */
export function recentDeliveries(db: Pick<SqlDb, 'all'>, opts: { limit: number; webhook?: string; failedOnly?: boolean }): Delivery[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (opts.webhook) {
    where.push('webhook = ?');
    params.push(opts.webhook);
  }
  if (opts.failedOnly) where.push(`(status = 'dead' OR (status = 'pending' AND attempts > 0))`);
  const sql = `SELECT * FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, rowid DESC LIMIT ?`;
  return db.all<DeliveryRow>(sql, [...params, opts.limit]).map(toDelivery);
}

/** Per webhook: deliveries pending, delivered, dead, and the newest one's time. */
export function deliveryCounts(db: Pick<SqlDb, 'all'>): Map<string, Record<DeliveryStatus, number>> {
  const out = new Map<string, Record<DeliveryStatus, number>>();
  for (const r of db.all<{ webhook: string; status: string; n: number }>(
    'SELECT webhook, status, count(*) AS n FROM webhook_deliveries GROUP BY webhook, status',
  )) {
    const c = out.get(String(r.webhook)) ?? { pending: 0, delivered: 0, dead: 0, cancelled: 0 };
    c[r.status as DeliveryStatus] = Number(r.n);
    out.set(String(r.webhook), c);
  }
  return out;
}

/** How one attempt went: answered 2xx (`ok`), or why not (an HTTP status, or none: refused, timed out, …). */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * Records one attempt of a pending delivery: delivered, due again at `retryAt`, or dead when
 * `retryAt` is undefined (the attempts are used up). A delivery no longer pending (cancelled
 * meanwhile) is left as it is. Returns the delivery after it.
 */
export function recordAttempt(tx: Tx, id: string, outcome: AttemptOutcome, iso: string, retryAt: string | undefined): Delivery | undefined {
  const row = tx.get<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?', [id]);
  if (!row || row.status !== 'pending') return row ? toDelivery(row) : undefined;
  const status = outcome.ok ? 'delivered' : retryAt === undefined ? 'dead' : 'pending';
  tx.run(
    `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_error = ?,
       next_attempt_at = ?, delivered_at = ? WHERE id = ?`,
    [status, iso, outcome.status, outcome.ok ? null : outcome.error, retryAt ?? row.next_attempt_at, outcome.ok ? iso : null, id],
  );
  return toDelivery(tx.get<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?', [id])!);
}

/** Records a test event's one attempt (never retried): delivered, or dead with the reason. */
export function recordTestDelivery(
  tx: Tx,
  d: { id: string; webhook: string; event: Record<string, unknown>; eventType: string; sentAt: string },
  outcome: AttemptOutcome,
): Delivery {
  tx.run(
    `INSERT INTO webhook_deliveries (id, webhook, event_seq, event_type, payload_json, status, attempts, next_attempt_at,
       last_attempt_at, last_status, last_error, delivered_at, created_at)
     VALUES (?, ?, NULL, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
    [
      d.id,
      d.webhook,
      d.eventType,
      JSON.stringify(d.event),
      outcome.ok ? 'delivered' : 'dead',
      d.sentAt,
      d.sentAt,
      outcome.status,
      outcome.ok ? null : outcome.error,
      outcome.ok ? d.sentAt : null,
      d.sentAt,
    ],
  );
  return toDelivery(tx.get<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?', [d.id])!);
}

/**
 * Puts dead deliveries of active webhooks back in their queue (attempts counted from zero
 * again), due at once; test events are not resent. Returns how many.
 */
export function retryDead(tx: Tx, iso: string, webhook?: string): number {
  tx.run(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?
      WHERE status = 'dead' AND event_seq IS NOT NULL AND webhook IN (SELECT name FROM webhooks)${webhook ? ' AND webhook = ?' : ''}`,
    webhook ? [iso, webhook] : [iso],
  );
  return tx.changes();
}
