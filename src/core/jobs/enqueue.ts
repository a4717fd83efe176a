/** Enqueueing background jobs inside a write transaction (docs/pipeline.md "Jobs"). */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';

/** Job types sharing memory_jobs. Handlers are registered per type on a {@link JobWorker}. */
export type JobType = 'extract' | 'document_ingest' | 'reembed' | 'embed' | 'team_review';

/**
 * Enqueue a job for a memory unless one of the same type is already pending or
 * leased for it. The partial unique index uq_jobs_open_memory makes this atomic.
 * Returns whether a new job was created.
 */
export function enqueueMemoryJob(
  tx: Tx,
  type: JobType,
  memoryId: string,
  now: string,
  opts: { maxAttempts?: number; payload?: Record<string, unknown> } = {},
): boolean {
  tx.run(
    `INSERT OR IGNORE INTO memory_jobs (id, job_type, memory_id, payload_json, status, attempts, max_attempts, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    [randomUUID(), type, memoryId, JSON.stringify(opts.payload ?? {}), opts.maxAttempts ?? 3, now, now],
  );
  return tx.changes() > 0;
}

/**
 * Enqueue a job for a document (document_ingest) unless one is already open for it. The
 * check is in the same transaction as the insert (and migration 0003 adds a partial unique
 * index as a backstop).
 */
export function enqueueDocumentJob(
  tx: Tx,
  type: JobType,
  documentId: string,
  now: string,
  opts: { maxAttempts?: number; payload?: Record<string, unknown> } = {},
): boolean {
  const open = tx.get(`SELECT 1 AS x FROM memory_jobs WHERE job_type = ? AND document_id = ? AND status IN ('pending', 'leased')`, [
    type,
    documentId,
  ]);
  if (open) return false;
  tx.run(
    `INSERT INTO memory_jobs (id, job_type, document_id, payload_json, status, attempts, max_attempts, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    [randomUUID(), type, documentId, JSON.stringify(opts.payload ?? {}), opts.maxAttempts ?? 3, now, now],
  );
  return true;
}

/** Cancel open jobs of a memory (it was deleted). */
export function cancelMemoryJobs(tx: Tx, memoryId: string, now: string): void {
  tx.run(
    `UPDATE memory_jobs SET status = 'cancelled', updated_at = ?, last_error = 'memory deleted'
     WHERE memory_id = ? AND status = 'pending'`,
    [now, memoryId],
  );
}
