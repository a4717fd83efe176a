/**
 * What every engine service shares: the stores and their runtimes, the live configuration,
 * the clock, warnings and events, and the write guard (restricted mode, read-only stores, a
 * closing engine). The engine creates one; services get it instead of the engine itself.
 */
import type { ResolvedConfig } from '../../core/config';
import type { ProjectIdResult } from '../../core/project';
import type { EngineConfig } from './config';
import { EngineError } from '../errors';
import type { EngineEvent, EngineInit, StoreName } from '../protocol';
import type { StoreRuntime } from './runtime/storeRuntime';
import type { Stores } from './stores';

export type ChangeKind = Extract<EngineEvent, { type: 'memory.changed' }>['kind'];

/** Most recent warnings kept for diagnostics. */
const MAX_WARNINGS = 100;

export class EngineContext {
  private readonly warningList: string[] = [];
  private closing = false;

  constructor(
    readonly init: EngineInit & { onEvent?: (event: EngineEvent) => void },
    readonly project: ProjectIdResult,
    readonly stores: Stores,
    private cfg: EngineConfig,
    readonly now: () => Date,
  ) {}

  get config(): ResolvedConfig {
    return this.cfg.config;
  }

  get engineConfig(): EngineConfig {
    return this.cfg;
  }

  set engineConfig(cfg: EngineConfig) {
    this.cfg = cfg;
  }

  get restricted(): boolean {
    return !!this.init.restricted;
  }

  get closed(): boolean {
    return this.closing;
  }

  markClosed(): void {
    this.closing = true;
  }

  get warnings(): string[] {
    return [...this.warningList];
  }

  warn(message: string): void {
    this.warningList.push(message);
    if (this.warningList.length > MAX_WARNINGS) this.warningList.shift();
    this.emit({ type: 'warning', message });
  }

  /** A line for the log that is no warning (the built-in model loaded or was released). */
  log(message: string): void {
    this.emit({ type: 'log', message });
  }

  emit(event: EngineEvent): void {
    try {
      this.init.onEvent?.(event);
    } catch {
      // A listener's failure must not fail the write that triggered it.
    }
  }

  changed(kind: ChangeKind, ids: string[], store: StoreName | 'both'): void {
    this.emit({ type: 'memory.changed', kind, ids, store });
  }

  /** Refuses writes that cannot happen (with the reason); runs `fn` and records when the store was last written. */
  write<T>(rt: StoreRuntime, fn: () => T): T {
    this.assertWritable(rt);
    const done = () => this.stores.markWrite(rt.name);
    let result: T;
    try {
      result = fn();
    } catch (e) {
      done();
      throw e;
    }
    // Async writes (embed, then commit): the write happened when the promise settles.
    if (result instanceof Promise) return result.finally(done) as T;
    done();
    return result;
  }

  assertWritable(rt: StoreRuntime): void {
    if (this.closing) throw new EngineError('engine_stopped', 'The memory engine is shutting down.');
    if (this.restricted) {
      throw new EngineError(
        'store_read_only',
        'This workspace is not trusted: Agent Memory runs in restricted mode and changes no memories. Trust the workspace to make changes.',
      );
    }
    if (rt.store.isReadOnly) {
      // The store says why: another process holds its lock (named by its purpose), an unreplayable log, …
      const why = rt.store.health().detail || 'This memory store is open read-only.';
      throw new EngineError('store_read_only', `The ${rt.name} memory store is read-only: ${why}`);
    }
  }
}
