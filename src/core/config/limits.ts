/**
 * Bounds on agent.yaml, which is untrusted input: it comes with a cloned repository, and a
 * hostile or broken file must not stall the engine's start or fill the Problems panel.
 */
import type { ConfigIssue } from './types.js';
import { plural } from '../text/plural';

/** Largest configuration file read. The real one is a few KiB; YAML parsing costs ~3 µs per byte. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** Issues reported per file; the rest are counted in one closing issue. */
export const MAX_REPORTED_ISSUES = 50;

/** The issue for a file over {@link MAX_CONFIG_BYTES}: it is not parsed at all. */
export function tooLargeIssue(bytes: number, source?: string): ConfigIssue {
  return {
    severity: 'error',
    key: '',
    message: `the configuration file is ${kib(bytes)} KiB; the limit is ${kib(MAX_CONFIG_BYTES)} KiB, so it is ignored and defaults are used`,
    ...(source !== undefined ? { source } : {}),
  };
}

/** UTF-8 size of `text`, without encoding it when its length alone decides. */
export function exceedsConfigLimit(text: string): number | undefined {
  if (text.length > MAX_CONFIG_BYTES) return Math.max(text.length, MAX_CONFIG_BYTES + 1);
  if (text.length * 3 <= MAX_CONFIG_BYTES) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > MAX_CONFIG_BYTES ? bytes : undefined;
}

/** The first {@link MAX_REPORTED_ISSUES} issues and, if there were more, one that counts them. */
export function capIssues(issues: ConfigIssue[], source?: string): ConfigIssue[] {
  if (issues.length <= MAX_REPORTED_ISSUES) return issues;
  const rest = issues.slice(MAX_REPORTED_ISSUES);
  const errors = rest.filter((i) => i.severity === 'error').length;
  const kinds = errors ? `${plural(errors, 'error')}, ${plural(rest.length - errors, 'warning')}` : plural(rest.length, 'warning');
  return [
    ...issues.slice(0, MAX_REPORTED_ISSUES),
    {
      severity: errors ? 'error' : 'warning',
      key: '',
      message: `and ${plural(rest.length, 'more issue')} not shown (${kinds}); fix the ones above first`,
      ...(source !== undefined ? { source } : {}),
    },
  ];
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0);
}
