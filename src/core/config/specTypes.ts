/** The kinds of entries in the declarative configuration table (CONFIG_SCHEMA). */
import type { ConfigKey } from './types.js';

/** Unit of a numeric key. Durations given as plain numbers are read in this unit. */
export type ConfigUnit = 'ms' | 's' | 'bytes' | 'chars' | 'count' | 'fraction' | 'factor';

interface SpecBase<P extends ConfigKey> {
  path: P;
  description: string;
}

export interface BooleanSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'boolean';
  default: boolean;
}

/** Whole numbers within [min, max]. */
export interface IntegerSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'integer';
  default: number;
  min: number;
  max: number;
  unit: ConfigUnit;
}

/** Real numbers within [min, max]. */
export interface NumberSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'number';
  default: number;
  min: number;
  max: number;
  unit: ConfigUnit;
}

/**
 * A time span stored as a whole number of `unit` (ms or s). Accepts a number in that unit
 * or a string such as "250ms", "30s", "5m", "1h", "7d", "1h30m".
 */
export interface DurationSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'duration';
  default: number;
  min: number;
  max: number;
  unit: 'ms' | 's';
}

/** A size stored in bytes. Accepts a number of bytes or a string such as "512KiB", "8MiB", "10MB". */
export interface ByteSizeSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'bytes';
  default: number;
  min: number;
  max: number;
  unit: 'bytes';
}

export interface StringSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'string';
  default: string;
  allowEmpty: boolean;
  maxLength: number;
}

export interface EnumSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'enum';
  default: string;
  values: readonly string[];
}

/** An http(s) base URL. The resolved value always carries an explicit port and no trailing slash. */
export interface UrlSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'url';
  default: string;
}

/** The list of webhooks (webhooks.ts): each with a name, an http(s) URL and the change types it wants. */
export interface WebhooksSpec<P extends ConfigKey = ConfigKey> extends SpecBase<P> {
  type: 'webhooks';
  default: readonly never[];
}

export type ConfigKeySpec<P extends ConfigKey = ConfigKey> =
  | BooleanSpec<P>
  | IntegerSpec<P>
  | NumberSpec<P>
  | DurationSpec<P>
  | ByteSizeSpec<P>
  | StringSpec<P>
  | EnumSpec<P>
  | UrlSpec<P>
  | WebhooksSpec<P>;

export type RangedSpec = IntegerSpec | NumberSpec | DurationSpec | ByteSizeSpec;

export function isRanged(spec: ConfigKeySpec): spec is RangedSpec {
  return spec.type === 'integer' || spec.type === 'number' || spec.type === 'duration' || spec.type === 'bytes';
}
