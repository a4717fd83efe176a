/**
 * What the Webhooks view and its commands say (docs/changes.md "Webhooks"), without VS Code: a
 * webhook's row (its state and counts), a delivery's row (what was sent, how it went), and the
 * notifications of Send Test Event, Copy Signing Secret and Retry Failed Deliveries.
 */
import type { WebhookDelivery, WebhookInfo } from '../../engine/protocol';
import { describeAgo, humanDate, relativeTime } from '../../core/text/timeWords';
import { plural } from '../../core/text/plural';

/** The look of a row: a codicon and the theme colour it is drawn in (undefined: the default). */
export interface RowLook {
  icon: string;
  color?: string;
}

/** Whether a webhook's newest delivery is failing now (tried, not delivered, due again). */
const failingNow = (w: WebhookInfo) => w.last?.status === 'pending' && w.last.attempts > 0;

/** The short state after a webhook's name: "no signing secret: nothing is sent", "5 delivered, 1 failed". */
export function webhookDescription(w: WebhookInfo): string {
  if (w.state === 'needs_secret') return 'no secret: nothing is sent';
  if (w.state === 'paused') return 'paused: this workspace is not trusted';
  const parts: string[] = [];
  if (failingNow(w)) parts.push('failing');
  if (w.pending) parts.push(`${w.pending} waiting`);
  parts.push(`${w.delivered} delivered`);
  if (w.dead) parts.push(`${w.dead} failed`);
  return parts.join(', ');
}

export function webhookLook(w: WebhookInfo): RowLook {
  if (w.state === 'needs_secret') return { icon: 'key', color: 'list.warningForeground' };
  if (w.state === 'paused') return { icon: 'debug-pause' };
  if (w.retryable || failingNow(w)) return { icon: 'warning', color: 'list.warningForeground' };
  return { icon: 'pass', color: 'testing.iconPassed' };
}

/** The webhook's tooltip: where it sends, what, its state in a sentence and where its secret is kept. */
export function webhookTooltip(w: WebhookInfo, secretsKeptIn: string): string {
  const state = {
    active: 'Every change it asks for is sent, signed with its secret.',
    needs_secret: 'It has no signing secret yet, so nothing is sent to it. Copy Signing Secret makes one; deliveries start once it exists.',
    paused: 'This workspace is not trusted, so nothing is sent.',
  }[w.state];
  const last = w.last ? `\n\nLast: ${deliveryTitle(w.last)}, ${deliveryDescription(w.last)}.` : '';
  return (
    `${w.name} → ${w.url}\n\nSends ${w.events.length ? w.events.join(', ') : 'every change'}. ${state}` +
    `${last}\n\nSigning secrets are kept in ${secretsKeptIn}.`
  );
}

/** The row's context value: what its menu offers (package.json "view/item/context"). */
export function webhookContext(w: WebhookInfo): string {
  return `webhook.${w.state}${w.retryable ? '.failed' : ''}`;
}

const TYPE_WORDS: Record<string, string> = {
  'memory.created': 'Memory created',
  'memory.updated': 'Memory updated',
  'memory.deleted': 'Memory deleted',
  'memory.merged': 'Memories merged',
  'memory.expired': 'Memory expired',
  'memory.restored': 'Memory restored',
  'memory.promoted': 'Memory made global',
  'webhook.test': 'Test event',
};

/** "Memory created (change 42)", "Test event". */
export function deliveryTitle(d: WebhookDelivery): string {
  const what = TYPE_WORDS[d.eventType] ?? d.eventType;
  return d.cursor !== null ? `${what} (change ${d.cursor})` : what;
}

/** "delivered 2 minutes ago", "failing, next try in 5 minutes", "failed after 8 attempts". */
export function deliveryDescription(d: WebhookDelivery, now = new Date()): string {
  switch (d.status) {
    case 'delivered':
      return `delivered ${describeAgo(d.deliveredAt ?? d.lastAttemptAt ?? d.createdAt, now)}`;
    case 'dead':
      return `failed after ${plural(d.attempts, 'attempt')}`;
    case 'cancelled':
      return 'cancelled: the webhook was removed';
    default:
      return d.attempts > 0 ? `failing, next try ${relativeTime(d.nextAttemptAt, now)}` : 'waiting to be sent';
  }
}

export function deliveryLook(d: WebhookDelivery): RowLook {
  switch (d.status) {
    case 'delivered':
      return { icon: 'check', color: 'testing.iconPassed' };
    case 'dead':
      return { icon: 'error', color: 'list.errorForeground' };
    case 'cancelled':
      return { icon: 'circle-slash' };
    default:
      return d.attempts > 0 ? { icon: 'sync', color: 'list.warningForeground' } : { icon: 'clock' };
  }
}

/** The delivery's tooltip: what happened, the last error, when, and its id (what a receiver de-duplicates by). */
export function deliveryTooltip(d: WebhookDelivery, now = new Date()): string {
  const lines = [`${deliveryTitle(d)} to ${d.webhook}: ${deliveryDescription(d, now)}.`];
  if (d.status !== 'delivered' && d.lastError) lines.push(`Last error: ${d.lastError}.`);
  if (d.lastAttemptAt) lines.push(`Last attempt: ${humanDate(d.lastAttemptAt)} (${plural(d.attempts, 'attempt')} in all).`);
  lines.push(`Delivery id: ${d.id} (the same on every attempt; the receiver drops repeats by it).`);
  return lines.join('\n\n');
}

/** What Send Test Event says: delivered (with the answer), or why not. */
export function testOutcome(d: WebhookDelivery): { ok: boolean; message: string } {
  if (d.status === 'delivered')
    return { ok: true, message: `The test event reached ${d.webhook}${d.lastStatus ? ` (it answered ${d.lastStatus})` : ''}.` };
  return {
    ok: false,
    message: `The test event did not reach ${d.webhook}: ${d.lastError ?? 'no answer'}. Check the URL and that the receiver runs, then send it again.`,
  };
}

/** What Copy Signing Secret says once the secret is on the clipboard. */
export function secretCopied(r: { name: string; created: boolean; keptIn: string }): string {
  return r.created
    ? `Made a signing secret for ${r.name} and copied it. Give it to the receiver (docs/changes.md says how it checks a delivery); ` +
        `changes are sent to ${r.name} from now on. The secret is kept in ${r.keptIn}.`
    : `Copied the signing secret of ${r.name} (kept in ${r.keptIn}).`;
}

/** The question before a secret is made: making it starts deliveries to the URL. */
export function makeSecretQuestion(w: Pick<WebhookInfo, 'name' | 'url'>): string {
  return (
    `${w.name} has no signing secret yet, so nothing is sent to it. Make one and copy it? ` +
    `Once it exists, changes of this project's memories are sent to ${w.url}.`
  );
}

/** What Retry Failed Deliveries says. */
export function retried(requeued: number, name?: string): string {
  const to = name ? ` to ${name}` : '';
  return requeued
    ? `${plural(requeued, 'failed delivery', 'failed deliveries')}${to} will be sent again now.`
    : `No failed deliveries${to} to send again (a failed test event is not retried: send another).`;
}
