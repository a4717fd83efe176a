/**
 * The change feed and webhook methods of the engine protocol (protocol.ts includes them): the
 * changes of a store after a cursor, and the project's webhooks and their deliveries
 * (docs/changes.md). Only plain data crosses.
 */
import type { ChangePage, Delivery } from '../core/changes/types';
import type { StoreName } from './protocol';

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
  /** The newest delivery, if any. */
  last?: WebhookDelivery;
}

/** webhooks.list: the webhooks of the project store and where their secrets are kept. */
export interface WebhooksOverview {
  webhooks: WebhookInfo[];
  /** Where signing secrets are kept, in words ("a file only you can read: …"). */
  secretsKeptIn: string;
}

export interface ChangeMethods {
  /**
   * The change feed (docs/changes.md): the changes of a store after `since` (0 or absent: from the
   * oldest kept), oldest first, at most `limit`. `gap` says retention removed changes after `since`.
   */
  'events.since': { params: { since?: number; limit?: number; store?: StoreName }; result: ChangePage };
  /** As events.since, but waits up to `timeoutMs` (default 25 s) for a change when there is none yet (a long poll). */
  'events.wait': { params: { since: number; limit?: number; store?: StoreName; timeoutMs?: number }; result: ChangePage };
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

/** The change methods that change nothing (protocol.ts READ_ONLY_METHODS). */
export const CHANGE_READ_METHODS = [
  'events.since',
  'events.wait',
  'webhooks.list',
  'webhooks.deliveries',
] as const satisfies readonly (keyof ChangeMethods)[];
