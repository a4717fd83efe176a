/**
 * The project's webhooks (docs/changes.md "Webhooks"): their state and recent deliveries, a test
 * event, their signing secrets and retrying dead deliveries. The sending itself is the project
 * store runtime's background task (src/core/webhooks/worker.ts), run by the store's owner only.
 * Webhooks belong to the project store; the global store's changes are in its own feed.
 */
import * as path from 'node:path';
import { deliveryCounts, recentDeliveries, retryDead, retryableCounts } from '../../../core/changes/outbox';
import { newSigningSecret, type SecretStore } from '../../../core/webhooks';
import { syncConfiguredWebhooks } from '../../../core/webhooks/sync';
import { errorMessage } from '../../../core/util/errors';
import { plural } from '../../../core/text/plural';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { WebhookDelivery, WebhookInfo, WebhooksOverview } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class WebhooksService {
  /** The webhooks last said to need a secret: the warning is given again only when that changes. */
  private saidNeedSecret = '';

  constructor(
    private readonly ctx: EngineContext,
    private readonly secrets: SecretStore,
  ) {}

  /** The key a webhook's secret is kept under: per project store, then the webhook's name. */
  private key(name: string): string {
    return `${path.basename(this.ctx.stores.project.dir)}/${name}`;
  }

  secretOf(name: string): Promise<string | undefined> {
    return this.secrets.get(this.key(name));
  }

  private get runtime(): StoreRuntime {
    return this.ctx.stores.runtime('project');
  }

  /** Whether this engine sends (it owns the project store, in a trusted workspace). */
  private get sends(): boolean {
    return !this.ctx.restricted && !this.ctx.stores.project.isReadOnly;
  }

  /** Brings the outbox's webhooks in line with the configuration and the secrets (at open, reload and a new secret). */
  async sync(opts: { warn: boolean }): Promise<void> {
    try {
      await this.syncOutbox(opts);
    } finally {
      this.ctx.emit({ type: 'webhooks.changed', count: this.ctx.config.webhooks.endpoints.length });
    }
  }

  private async syncOutbox(opts: { warn: boolean }): Promise<void> {
    if (!this.sends) return;
    const endpoints = this.ctx.config.webhooks.endpoints;
    try {
      const r = await syncConfiguredWebhooks(this.ctx.stores.project, endpoints, (n) => this.secretOf(n), this.ctx.now().toISOString());
      const need = r.needsSecret.join(', ');
      const say = opts.warn && need !== '' && need !== this.saidNeedSecret;
      this.saidNeedSecret = need;
      if (say) {
        this.ctx.warn(
          `${plural(r.needsSecret.length, 'webhook has', 'webhooks have')} no signing secret yet (${r.needsSecret.join(', ')}): ` +
            `nothing is sent to ${r.needsSecret.length === 1 ? 'it' : 'them'} until one exists. ` +
            `Make it with "agent-memory webhooks secret ${r.needsSecret[0]}" (docs/changes.md says how the receiver checks deliveries).`,
        );
      }
      if (r.changed) this.runtime.kickWebhooks();
    } catch (e) {
      this.ctx.warn(`webhooks: the configured webhooks could not be set up (${errorMessage(e)}); nothing is sent until they are`);
    }
  }

  async list(): Promise<WebhooksOverview> {
    const store = this.ctx.stores.project;
    const counts = deliveryCounts(store);
    const retryable = retryableCounts(store);
    const webhooks: WebhookInfo[] = [];
    for (const e of this.ctx.config.webhooks.endpoints) {
      const c = counts.get(e.name) ?? { pending: 0, delivered: 0, dead: 0, cancelled: 0 };
      const last = recentDeliveries(store, { limit: 1, webhook: e.name })[0];
      const state = this.ctx.restricted ? 'paused' : (await this.secretOf(e.name)) ? 'active' : 'needs_secret';
      webhooks.push({
        name: e.name,
        url: e.url,
        events: [...e.events],
        state,
        pending: c.pending,
        delivered: c.delivered,
        dead: c.dead,
        retryable: retryable.get(e.name) ?? 0,
        ...(last ? { last } : {}),
      });
    }
    return { webhooks, secretsKeptIn: this.secrets.where };
  }

  deliveries(limit: number, name?: string, failed?: boolean): WebhookDelivery[] {
    return recentDeliveries(this.ctx.stores.project, {
      limit,
      ...(name ? { webhook: name } : {}),
      ...(failed ? { failedOnly: true } : {}),
    });
  }

  async test(name: string): Promise<WebhookDelivery> {
    this.configured(name);
    if (this.ctx.restricted) throw this.notReady(name, 'this workspace is not trusted, so nothing is sent.');
    if (!(await this.secretOf(name))) throw this.notReady(name, `it has no signing secret yet (agent-memory webhooks secret ${name}).`);
    const sender = this.runtime.webhookSender;
    if (!sender) throw this.notReady(name, 'this process does not own the memory store.');
    await this.sync({ warn: false });
    const d = await sender.sendTest(name);
    if (!d) throw this.notReady(name, 'it is not among the webhooks in use.');
    return d;
  }

  /** The webhook's secret (made when missing, or replaced with `rotate`); deliveries start once it exists. */
  async secret(name: string, rotate: boolean): Promise<{ name: string; secret: string; created: boolean; keptIn: string }> {
    if (!NAME.test(name))
      throw new EngineError('invalid_input', `name: must be 1 to 64 letters, digits, dots, dashes or underscores, got "${name}"`);
    let secret = rotate ? undefined : await this.secretOf(name);
    const created = !secret;
    if (!secret) {
      secret = newSigningSecret();
      await this.secrets.set(this.key(name), secret);
    }
    if (created) await this.sync({ warn: false });
    return { name, secret, created, keptIn: this.secrets.where };
  }

  retry(name?: string): { requeued: number } {
    if (name) this.configured(name);
    const rt = this.runtime;
    const requeued = this.ctx.write(rt, () => rt.store.transaction((tx) => retryDead(tx, this.ctx.now().toISOString(), name)));
    if (requeued) rt.kickWebhooks();
    return { requeued };
  }

  private configured(name: string): void {
    if (!this.ctx.config.webhooks.endpoints.some((e) => e.name === name)) {
      const names = this.ctx.config.webhooks.endpoints.map((e) => e.name);
      throw new EngineError(
        'not_found',
        `No webhook named "${name}" is configured${names.length ? ` (there are: ${names.join(', ')})` : ' (webhooks.endpoints in agent.yaml or the settings)'}.`,
      );
    }
  }

  private notReady(name: string, reason: string): EngineError {
    return new EngineError('webhook_not_ready', `Webhook ${name} cannot send yet: ${reason}`);
  }
}
