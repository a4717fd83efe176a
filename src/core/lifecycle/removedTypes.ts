/** The shapes of the recently removed list (removed.ts), without runtime imports: the protocol and webviews use them. */
import type { MemorySummary } from '../memory/types';

export type RemovedReason = 'expired' | 'deleted';

export interface RemovedMemory {
  memory: MemorySummary;
  reason: RemovedReason;
  /** When it was deleted or expired (ISO). */
  removedAt: string;
  /** Who removed it ('user', 'lifecycle', 'pipeline', …) and the reason given, if any. */
  removedBy: string | null;
  detail: string | null;
  /** When the retention sweep purges it for good (ISO). */
  purgeAt: string;
}
