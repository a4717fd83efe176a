/**
 * The shape of a held-back UPDATE/DELETE (pipeline_reviews row). Types only, no Node imports, so
 * the engine protocol (type-checked for the browser webviews too) can name it.
 */
export interface PendingReview {
  id: string;
  historyId: string;
  action: 'UPDATE' | 'DELETE';
  targetId: string;
  targetContent: string | null;
  sourceMemoryId: string | null;
  factContent: string;
  factType: string;
  confidence: number;
  reason: string;
  conflict: string | null;
  status: 'pending' | 'approved' | 'rejected' | 'stale';
  createdAt: string;
}
