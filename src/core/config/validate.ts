/** Checks one raw value against its schema entry and converts it to the resolved value. */
import { parseByteSize } from './byteSize.js';
import { formatValue, showRaw } from './describe.js';
import { parseDurationMs } from './duration.js';
import type { ConfigKeySpec, EnumSpec, RangedSpec, StringSpec, UrlSpec } from './specTypes.js';
import { closest } from './suggest.js';
import { checkWebhooks } from './webhooks.js';
import type { WebhookEndpointConfig } from './changeTypes.js';

export type Checked =
  { ok: true; value: boolean | number | string | WebhookEndpointConfig[]; warning?: string } | { ok: false; message: string };

const fail = (message: string): Checked => ({ ok: false, message });

/** "the string \"abc\"", "a list", "a mapping", "the number 5", "null". */
export function describeKind(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'object') return 'a mapping';
  if (typeof raw === 'string') return `the string ${showRaw(raw)}`;
  if (typeof raw === 'number') return `the number ${raw}`;
  if (typeof raw === 'boolean') return `the boolean ${raw}`;
  return `a ${typeof raw}`;
}

const YAML11_BOOLEANS = /^(y|yes|n|no|on|off|true|false)$/i;

export function checkValue(spec: ConfigKeySpec, raw: unknown): Checked {
  switch (spec.type) {
    case 'boolean':
      return checkBoolean(raw);
    case 'integer':
    case 'number':
      if (typeof raw !== 'number') return fail(`expected a number, got ${describeKind(raw)}`);
      return checkRange(spec, raw);
    case 'duration':
      return checkRange(spec, toDuration(spec.unit, raw));
    case 'bytes':
      return checkRange(spec, toBytes(raw));
    case 'string':
      return checkString(spec, raw);
    case 'enum':
      return checkEnum(spec, raw);
    case 'url':
      return checkUrl(spec, raw);
    case 'webhooks':
      return checkWebhooks(raw);
  }
}

function checkBoolean(raw: unknown): Checked {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (typeof raw === 'string' && YAML11_BOOLEANS.test(raw.trim())) {
    return fail(`expected true or false, got ${describeKind(raw)} (write true or false, unquoted)`);
  }
  return fail(`expected true or false, got ${describeKind(raw)}`);
}

function checkString(spec: StringSpec, raw: unknown): Checked {
  if (typeof raw !== 'string') return fail(`expected a string, got ${describeKind(raw)}`);
  const value = raw.trim();
  if (!spec.allowEmpty && value === '') return fail('must not be empty');
  if (value.length > spec.maxLength) return fail(`is longer than ${spec.maxLength} characters`);
  return { ok: true, value };
}

function checkEnum(spec: EnumSpec, raw: unknown): Checked {
  if (typeof raw !== 'string') return fail(`expected one of ${spec.values.join(', ')}, got ${describeKind(raw)}`);
  if (spec.values.includes(raw)) return { ok: true, value: raw };
  const near = closest(raw, spec.values);
  return fail(`${showRaw(raw)} is not one of ${spec.values.join(', ')}${near ? ` (did you mean "${near}"?)` : ''}`);
}

/** A number in the key's unit, or an error message string wrapped so checkRange can report it. */
type Converted = number | { error: string };

function toDuration(unit: 'ms' | 's', raw: unknown): Converted {
  if (typeof raw === 'number') return raw;
  if (typeof raw !== 'string') return { error: `expected a duration, got ${describeKind(raw)}` };
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    return {
      // What is allowed (with examples inside the key's range) follows the message (describeAllowed).
      error: `${showRaw(raw)} is not a valid duration`,
    };
  }
  return unit === 's' ? ms / 1000 : ms;
}

function toBytes(raw: unknown): Converted {
  if (typeof raw === 'number') return raw;
  if (typeof raw !== 'string') return { error: `expected a size in bytes, got ${describeKind(raw)}` };
  const n = parseByteSize(raw);
  if (n === undefined) return { error: `${showRaw(raw)} is not a valid size (use a number of bytes or e.g. "512KiB", "8MiB", "10MB")` };
  return n;
}

function checkRange(spec: RangedSpec, n: Converted): Checked {
  if (typeof n !== 'number') return fail(n.error);
  if (!Number.isFinite(n)) return fail(`${n} is not a finite number`);
  const wholeUnit =
    spec.type === 'duration' ? (spec.unit === 'ms' ? ' of milliseconds' : ' of seconds') : spec.type === 'bytes' ? ' of bytes' : '';
  if (spec.type !== 'number' && !Number.isInteger(n)) return fail(`${n} is not a whole number${wholeUnit}`);
  if (n < spec.min) return fail(`${formatValue(spec, n)} is below the minimum ${formatValue(spec, spec.min)}`);
  if (n > spec.max) return fail(`${formatValue(spec, n)} is above the maximum ${formatValue(spec, spec.max)}`);
  return { ok: true, value: n };
}

function checkUrl(spec: UrlSpec, raw: unknown): Checked {
  if (typeof raw !== 'string') return fail(`expected a URL string, got ${describeKind(raw)}`);
  const text = raw.trim();
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return fail(`${showRaw(raw)} is not a valid URL (expected e.g. ${spec.default})`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return fail(`${showRaw(raw)} must use http:// or https://`);
  if (u.search || u.hash) return fail(`${showRaw(raw)} must not contain a query or fragment`);
  // URL drops a port equal to the scheme default; the resolved value always spells it out.
  const explicitPort = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/]*):(\d+)/i.test(text);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  const path = u.pathname.replace(/\/+$/, '');
  const value = `${u.protocol}//${auth}${u.hostname}:${port}${path}`;
  if (!explicitPort && u.protocol === 'http:') {
    return {
      ok: true,
      value,
      warning: `${showRaw(raw)} has no port, so port 80 is used; a local Ollama server listens on 11434 (e.g. ${spec.default})`,
    };
  }
  return { ok: true, value };
}
