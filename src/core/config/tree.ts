/** Building, reading, writing and freezing the nested configuration object by dotted path. */
import { CONFIG_SCHEMA } from './schema.js';
import type { ConfigShape, ResolvedConfig } from './types.js';

type Tree = Record<string, unknown>;

export function getAt(root: unknown, path: string): unknown {
  let node: unknown = root;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

export function setAt(root: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== 'object') node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1] as string] = value;
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value as Tree)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A fresh, mutable configuration with every key at its default. */
export function defaultShape(): ConfigShape {
  const root: Tree = {};
  for (const spec of CONFIG_SCHEMA) setAt(root, spec.path, spec.default);
  return root as unknown as ConfigShape;
}

/** A mutable copy of a resolved configuration. */
export function thaw(config: ResolvedConfig): ConfigShape {
  return structuredClone(config) as ConfigShape;
}

const DEFAULTS: ResolvedConfig = deepFreeze(defaultShape());

/** The configuration with every key at its default (deep-frozen, shared). */
export function defaultConfig(): ResolvedConfig {
  return DEFAULTS;
}
