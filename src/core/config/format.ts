/** One-line rendering of a configuration issue, e.g. for an output channel or a CLI. */
import type { ConfigIssue } from './types.js';

/** `agent.yaml:12:5: error: memory.pipelineV2.workerPollMs: ... (allowed: ...)` */
export function formatIssue(issue: ConfigIssue): string {
  let where = issue.source ?? '';
  if (issue.line !== undefined) where += `${where ? ':' : 'line '}${issue.line}${issue.column !== undefined ? `:${issue.column}` : ''}`;
  const allowed = issue.allowed && issue.severity === 'error' ? ` (allowed: ${issue.allowed})` : '';
  return `${where ? `${where}: ` : ''}${issue.severity}: ${issue.message}${allowed}`;
}
