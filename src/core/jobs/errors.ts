/**
 * Thrown by a job handler when the failure is not the job's fault (the LLM is unreachable,
 * the worker is stopping): the job is released without spending an attempt, and the worker
 * backs off. Anything else thrown counts as a failed attempt.
 */
export class TransientJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientJobError';
  }
}
