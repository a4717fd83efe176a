/** Webhook and removed-memory shapes of the engine protocol (protocol.ts re-exports them; docs/changes.md, docs/lifecycle.md). */
import type { Delivery } from '../core/changes/types';
import type { RemovedMemory } from '../core/lifecycle/removedTypes';

type WebhookDelivery = Delivery;

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

/** A page of recently deleted and expired memories (memory.listRemoved). */
export interface RemovedList {
  items: RemovedMemory[];
  total: number;
  offset: number;
  limit: number;
  /** How long a removed memory stays restorable (memory.pipelineV2.tombstoneRetentionMs). */
  restorableForMs: number;
}
