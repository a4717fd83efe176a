/** The change feed's shapes (docs/changes.md): one event per change of a memory, no memory text. */

import { CHANGE_TYPES } from '../config/changeTypes';

/** Every kind of change the feed records, as webhooks and the feed name it (one list: the configuration checks webhooks against it). */
export { CHANGE_TYPES };
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** What a receiver is sent by "Send test event": not a change, never in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface ChangeEvent {
  /** The feed's cursor: a whole number, larger for every later change, never reused. */
  cursor: number;
  type: ChangeType;
  memoryId: string;
  /** The store the memory lives in. */
  store: 'project' | 'global';
  projectId: string;
  /** The memory's version after the change. */
  version: number;
  /** Who made the change: user, cli, an agent's name, lifecycle, pipeline-v2 … (null when not recorded). */
  actor: string | null;
  /** memory.merged of a memory absorbed by a merge: the memory it went into. */
  mergedInto?: string;
  /** When the change was made (ISO 8601, UTC). */
  at: string;
}

/** A page of the feed after a cursor. */
export interface ChangePage {
  events: ChangeEvent[];
  /** Give this as the next `since`: the last event's cursor, or the one given when there was none. */
  cursor: number;
  /** More events follow (ask again from `cursor`). */
  more: boolean;
  /**
   * Retention removed events after the cursor given (it is older than the history kept): the
   * reader missed changes and should read the memories again rather than rely on the feed.
   */
  gap: boolean;
  /** The newest cursor in the store (equal to `cursor` once the reader is up to date). */
  latest: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead' | 'cancelled';

/** One delivery of one event to one webhook (docs/changes.md "Webhooks"). */
export interface Delivery {
  id: string;
  webhook: string;
  /** The event's cursor (null for a test event). */
  cursor: number | null;
  eventType: string;
  /** The event as it is sent. */
  event: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  /** HTTP status of the last answer (null when none came: refused, timed out, not sent yet). */
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}
