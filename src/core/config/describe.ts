/** Human-readable descriptions of schema entries: accepted values and formatted values. */
import { formatByteSize } from './byteSize.js';
import { formatDurationMs } from './duration.js';
import type { ConfigKeySpec } from './specTypes.js';
import { describeWebhooksAllowed } from './changeTypes.js';

const DURATION_EXAMPLES: readonly [string, number][] = [
  ['250ms', 250],
  ['30s', 30_000],
  ['5m', 300_000],
  ['1h', 3_600_000],
  ['7d', 604_800_000],
  ['30d', 2_592_000_000],
];

const UNIT_WORD: Readonly<Record<string, string>> = {
  chars: ' characters',
  bytes: ' bytes',
  ms: ' ms',
  s: ' s',
};

function durationMs(spec: ConfigKeySpec & { type: 'duration' }, n: number): number {
  return spec.unit === 's' ? n * 1000 : n;
}

/** A value as a person would read it, e.g. `300000 (5m)`, `10485760 (10MiB)`, `"qwen3:4b"`. */
export function formatValue(spec: ConfigKeySpec, value: unknown): string {
  if (typeof value === 'number') {
    if (spec.type === 'duration') return formatDurationMs(durationMs(spec, value));
    if (spec.type === 'bytes') return `${value} (${formatByteSize(value)})`;
    return String(value);
  }
  return showRaw(value);
}

/**
 * What `String(value)` gives for the values a configuration holds (a plain object shows as
 * `[object Object]`, an array as its items joined with commas), without calling an object's own `toString`.
 */
export function plainString(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object' && value !== null) return Object.prototype.toString.call(value);
  return String(value);
}

/** Any raw value, briefly: strings quoted, objects as JSON, long text cut. */
export function showRaw(value: unknown): string {
  let text: string;
  if (value === undefined) return 'undefined';
  try {
    // A long string is cut before quoting: a 50 MB value must not be copied to show 80 characters.
    text =
      typeof value === 'string'
        ? JSON.stringify(value.length > 100 ? value.slice(0, 100) : value)
        : (JSON.stringify(value) ?? plainString(value));
  } catch {
    text = plainString(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** What a key accepts, e.g. `100–60000 ms (100ms–1m); a number of ms or a duration like "30s", "5m", "1h"`. */
export function describeAllowed(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'boolean':
      return 'true or false';
    case 'integer':
      return `a whole number from ${spec.min} to ${spec.max}${UNIT_WORD[spec.unit] ?? ''}`;
    case 'number':
      return `a number from ${spec.min} to ${spec.max}`;
    case 'duration': {
      const [lo, hi] = [durationMs(spec, spec.min), durationMs(spec, spec.max)];
      // Examples inside the range only: "30s" is no example for a key whose minimum is 1m.
      const examples = DURATION_EXAMPLES.filter(([, ms]) => ms >= lo && ms <= hi).map(([text]) => `"${text}"`);
      const unitName = spec.unit === 'ms' ? 'milliseconds' : 'seconds';
      const like = examples.length ? `a duration like ${examples.slice(0, 3).join(', ')}` : 'a duration';
      return `from ${formatDurationMs(lo)} to ${formatDurationMs(hi)}: ${like}, or a whole number of ${unitName}`;
    }
    case 'bytes':
      return `${spec.min}–${spec.max} bytes (${formatByteSize(spec.min)}–${formatByteSize(spec.max)}): a number of bytes or a size like "512KiB", "8MiB"`;
    case 'string':
      return `${spec.allowEmpty ? 'a string' : 'a non-empty string'} of at most ${spec.maxLength} characters`;
    case 'enum':
      return `one of: ${spec.values.join(', ')}`;
    case 'url':
      return 'an http:// or https:// URL with a port, e.g. http://127.0.0.1:11434';
    case 'webhooks':
      return describeWebhooksAllowed();
  }
}
