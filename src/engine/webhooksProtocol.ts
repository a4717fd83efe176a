/** The webhook types of the engine protocol (docs/changes.md "Webhooks"); protocol.ts re-exports them. */
import type { Delivery } from '../core/changes/types';

/** One delivery of a change (or a test event) to a webhook, as the owner recorded it (docs/changes.md). */
export type WebhookDelivery = Delivery;

/** A configured webhook and how its deliveries go (webhooks.list). */
export interface WebhookInfo {
  name: string;
  url: string;
  /** The change types it receives ([] = all). */
  events: string[];
  /**
   * active: deliveries are queued and sent; needs_secret: nothing is sent until its signing
   * secret exists; paused: this workspace is not trusted (restricted mode sends nothing).
   */
  state: 'active' | 'needs_secret' | 'paused';
  pending: number;
  delivered: number;
  dead: number;
  /** Of the dead, the deliveries of changes that webhooks.retry sends again (a failed test event is not retried). */
  retryable: number;
  /** The newest delivery, if any. */
  last?: WebhookDelivery;
}

/** webhooks.list: the webhooks of the project store and where their secrets are kept. */
export interface WebhooksOverview {
  webhooks: WebhookInfo[];
  /** Where signing secrets are kept, in words ("a file only you can read: …"). */
  secretsKeptIn: string;
}

/** The webhooks.* methods of EngineMethods. */
export interface WebhookMethods {
  /** The project's webhooks (webhooks.endpoints) with their state and counts. */
  'webhooks.list': { params: Record<string, never>; result: WebhooksOverview };
  /** Recent deliveries, newest first: of one webhook, and/or only failed ones (retrying or dead). */
  'webhooks.deliveries': { params: { limit?: number; name?: string; failed?: boolean }; result: WebhookDelivery[] };
  /** Sends one signed test event to the webhook now (never retried) and answers how it went. */
  'webhooks.test': { params: { name: string }; result: WebhookDelivery };
  /** The webhook's signing secret, made when there is none (`rotate`: a new one replaces it). */
  'webhooks.secret': {
    params: { name: string; rotate?: boolean };
    result: { name: string; secret: string; created: boolean; keptIn: string };
  };
  /** Sends dead deliveries again (of one webhook, or all): how many were queued. */
  'webhooks.retry': { params: { name?: string }; result: { requeued: number } };
}
