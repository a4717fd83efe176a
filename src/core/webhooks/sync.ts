/**
 * The outbox's webhooks kept in step with the configuration (docs/changes.md "Webhooks"): a
 * configured webhook receives deliveries once its signing secret exists. Until then nothing is
 * queued for it, so a webhook that arrived in a cloned repository's agent.yaml sends nothing
 * until the person made its secret — and with it, told the receiver how to check deliveries.
 */
import type { Store } from '../store/store';
import { syncWebhooks, type WebhookTarget } from '../changes/outbox';
import type { ChangeType } from '../changes/types';

export interface WebhookSyncResult {
  active: string[];
  /** Configured, but no signing secret yet: nothing is sent to them. */
  needsSecret: string[];
  /** The webhooks table was written (something was added, changed or removed). */
  changed: boolean;
}

export async function syncConfiguredWebhooks(
  store: Store,
  endpoints: readonly { readonly name: string; readonly url: string; readonly events: readonly string[] }[],
  secretOf: (name: string) => Promise<string | undefined>,
  iso: string,
): Promise<WebhookSyncResult> {
  const active: WebhookTarget[] = [];
  const needsSecret: string[] = [];
  for (const e of endpoints) {
    if (await secretOf(e.name)) active.push({ name: e.name, url: e.url, events: e.events as ChangeType[] });
    else needsSecret.push(e.name);
  }
  const changed = syncWebhooks(store, active, iso);
  return { active: active.map((a) => a.name), needsSecret, changed };
}
