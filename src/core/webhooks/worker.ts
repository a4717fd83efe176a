/**
 * The store owner's webhook sender (docs/changes.md "Webhooks"), a background task the engine's
 * scheduler drives: each step sends, for every webhook whose next delivery is due, that one
 * delivery — so a webhook gets its changes in the feed's order, and one that fails holds only
 * its own queue. A failed attempt is due again after `retryDelay`, doubling up to
 * `maxRetryDelay`; after `maxAttempts` the delivery is dead (listed, retried on request).
 * Each outcome is recorded in its own short transaction after the HTTP exchange, never during
 * it: a slow or failing endpoint never holds a write. A delivery sent but not yet recorded when
 * the owner dies is sent again by the next owner (at least once; receivers drop repeats by id).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store';
import { WakeSignal, type BackgroundTask } from '../util/backgroundTask';
import { errorMessage } from '../util/errors';
import {
  activeWebhooks,
  queueHeads,
  recordAttempt,
  recordTestDelivery,
  type AttemptOutcome,
  type Delivery,
  type WebhookTarget,
} from '../changes/outbox';
import { TEST_EVENT_TYPE } from '../changes/types';
import { HEADER_DELIVERY, HEADER_EVENT, HEADER_SIGNATURE, HEADER_TIMESTAMP, signBody } from './signing';
import { postDelivery } from './send';

export interface DeliverySettings {
  timeoutMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

export interface WebhookSenderOptions {
  store: Store;
  /** The signing secret of a webhook, by name (undefined: none, nothing is sent to it). */
  secret: (webhook: string) => Promise<string | undefined>;
  settings: () => DeliverySettings;
  now?: () => Date;
  /** After every recorded attempt (the engine tells the windows). */
  onAttempt?: (d: Delivery) => void;
  onWarning?: (message: string) => void;
}

/** The wait after the `attempt`-th failed attempt: retryDelay, doubling, at most maxRetryDelay. */
export function retryDelayMs(s: DeliverySettings, attempt: number): number {
  return Math.min(s.maxRetryDelayMs, s.retryDelayMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}

/** What a receiver gets: the delivery id, the webhook, which attempt, and the event (no memory text). */
export function deliveryBody(d: Pick<Delivery, 'id' | 'webhook' | 'event'>, attempt: number): string {
  return JSON.stringify({ id: d.id, webhook: d.webhook, attempt, event: d.event });
}

export class WebhookSender implements BackgroundTask {
  readonly name = 'webhook deliveries';
  private readonly wake = new WakeSignal();
  private running = false;
  private readonly abort = new AbortController();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly opts: WebhookSenderOptions) {}

  private now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  /** Starts sending; every commit wakes the task (a change may have queued deliveries). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.opts.store.onCommit(() => this.wake.fire());
    this.wake.fire();
  }

  /** Stops: no new step, and the attempts under way are cut short (they stay pending: sent again later). */
  stop(): void {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.abort.abort();
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  /** Look at the queues again now (webhooks or deliveries changed without a commit of a change). */
  kick(): void {
    if (this.running) this.wake.fire();
  }

  dueInMs(): number | undefined {
    if (!this.running || this.opts.store.isReadOnly) return undefined;
    const heads = queueHeads(this.opts.store);
    if (!heads.length) return undefined;
    const now = this.now().getTime();
    return Math.max(0, Math.min(...heads.map((d) => Date.parse(d.nextAttemptAt) - now)));
  }

  /** One attempt of every due head of a queue, side by side. */
  async runStep(): Promise<void> {
    if (!this.running) return;
    const hooks = new Map(activeWebhooks(this.opts.store).map((h) => [h.name, h]));
    const now = this.now().getTime();
    const due = queueHeads(this.opts.store).filter((d) => Date.parse(d.nextAttemptAt) <= now && hooks.has(d.webhook));
    await Promise.all(due.map((d) => this.attempt(d, hooks.get(d.webhook)!)));
  }

  private async attempt(d: Delivery, hook: WebhookTarget): Promise<void> {
    const settings = this.opts.settings();
    const outcome = await this.send(hook, d, d.attempts + 1, settings);
    if (!this.running && !outcome.ok) return; // cut short by stop(): not an attempt of the endpoint's
    const at = this.now();
    const attempts = d.attempts + 1;
    const retryAt =
      outcome.ok || attempts >= settings.maxAttempts ? undefined : new Date(at.getTime() + retryDelayMs(settings, attempts)).toISOString();
    const iso = at.toISOString();
    try {
      const after = this.opts.store.transaction((tx) => recordAttempt(tx, d.id, outcome, iso, retryAt));
      if (after) this.opts.onAttempt?.(after);
    } catch (e) {
      // Not recorded (disk full, the store closed): it stays pending and is sent again.
      this.opts.onWarning?.(
        `webhook ${hook.name}: the outcome of a delivery could not be saved (${errorMessage(e)}); it will be sent again`,
      );
    }
  }

  private async send(
    hook: WebhookTarget,
    d: Pick<Delivery, 'id' | 'webhook' | 'event' | 'eventType'>,
    attempt: number,
    s: DeliverySettings,
  ): Promise<AttemptOutcome> {
    let secret: string | undefined;
    try {
      secret = await this.opts.secret(hook.name);
    } catch (e) {
      return { ok: false, status: null, error: `its signing secret could not be read: ${errorMessage(e)}` };
    }
    if (!secret) return { ok: false, status: null, error: 'it has no signing secret (agent-memory webhooks secret NAME makes one)' };
    const body = deliveryBody(d, attempt);
    const timestamp = Math.floor(this.now().getTime() / 1000);
    const headers = {
      'user-agent': 'agent-memory-webhooks/1',
      [HEADER_DELIVERY]: d.id,
      [HEADER_EVENT]: d.eventType,
      [HEADER_TIMESTAMP]: String(timestamp),
      [HEADER_SIGNATURE]: signBody(secret, timestamp, body),
    };
    return postDelivery(hook.url, body, headers, { timeoutMs: s.timeoutMs, signal: this.abort.signal });
  }

  /** "Send test event": one signed test delivery now, outside the queue and never retried; recorded with its outcome. */
  async sendTest(webhook: string): Promise<Delivery | undefined> {
    const hook = activeWebhooks(this.opts.store).find((h) => h.name === webhook);
    if (!hook) return undefined;
    const iso = this.now().toISOString();
    const id = randomUUID();
    const event = {
      type: TEST_EVENT_TYPE,
      webhook,
      at: iso,
      message: 'A test event from Agent Memory: the webhook is reachable and the signature can be checked.',
    };
    const outcome = await this.send(hook, { id, webhook, event, eventType: TEST_EVENT_TYPE }, 1, this.opts.settings());
    const d = this.opts.store.transaction((tx) =>
      recordTestDelivery(tx, { id, webhook, event, eventType: TEST_EVENT_TYPE, sentAt: iso }, outcome),
    );
    this.opts.onAttempt?.(d);
    return d;
  }
}
