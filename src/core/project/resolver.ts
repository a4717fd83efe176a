/**
 * Cached project id resolution. It runs on every read and write, so path results are kept in
 * a small LRU map for `ttlMs` (edits to `.git/config` or an override file are seen at the
 * latest then, or at once after `invalidate()`).
 */
import * as path from 'node:path';
import { classifyRawInput } from './rawInput';
import { resolvePath } from './resolvePath';
import type { ProjectIdResult, ResolveOptions } from './types';

export interface ResolverOptions {
  /** Most cached paths kept; the least recently used goes first. Default 256. */
  maxEntries?: number;
  /** How long a cached result is trusted, in ms. Default 60 000; `Infinity` = until invalidated. */
  ttlMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  result: ProjectIdResult;
  at: number;
}

export class ProjectIdResolver {
  private readonly cache = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(opts: ResolverOptions = {}) {
    this.maxEntries = Math.max(1, opts.maxEntries ?? 256);
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Resolution does a few small synchronous reads; the promise form is for callers' convenience. */
  async resolve(rawIdOrPath: string, opts?: ResolveOptions): Promise<ProjectIdResult> {
    return this.resolveSync(rawIdOrPath, opts);
  }

  resolveSync(rawIdOrPath: string, opts: ResolveOptions = {}): ProjectIdResult {
    const input = classifyRawInput(rawIdOrPath, opts);
    if (input.kind === 'id') return freeze(input.result);
    const key = input.path;
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && now - hit.at < this.ttlMs) {
      this.cache.delete(key); // re-insert: Map order is the LRU order
      this.cache.set(key, hit);
      return hit.result;
    }
    const result = freeze(resolvePath(key));
    this.cache.delete(key);
    this.cache.set(key, { result, at: now });
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    return result;
  }

  /**
   * Forgets cached results. With a path (a changed file or directory), only those it can
   * affect: entries whose walk passes through its directory (a new `.agent-memory.yml` in
   * `/a` affects everything under `/a`), and entries whose project root contains it
   * (`/repo/.git/config` affects everything resolved to `/repo`).
   */
  invalidate(changedPath?: string): void {
    if (changedPath === undefined) {
      this.cache.clear();
      return;
    }
    const changed = path.resolve(changedPath);
    const dir = path.dirname(changed);
    for (const [key, { result }] of this.cache) {
      if (isWithin(key, dir) || (result.root !== undefined && isWithin(changed, result.root))) this.cache.delete(key);
    }
  }

  get size(): number {
    return this.cache.size;
  }
}

/** True when `child` is `parent` or lies inside it. */
function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function freeze(r: ProjectIdResult): ProjectIdResult {
  if (r.warnings) Object.freeze(r.warnings);
  return Object.freeze(r);
}
