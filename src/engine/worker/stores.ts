/**
 * The engine's two stores: the project's and the global one (scope = global). Opening them
 * (a lock left by this window's crashed engine thread is reclaimed; a lock held by another
 * process opens the store read-only), routing by scope, finding which store holds a memory,
 * and paging listings across both (project first, then global). The runtimes over them are
 * rebuilt on a configuration reload; the stores stay open until the engine closes.
 */
import { shownValue } from '../../core/util/shownValue';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../../core/store/store';
import type { ListOptions, ListResult, MemoryRecord, MemoryScope } from '../../core/memory/types';
import { LIMIT_RANGES } from '../../core/memory/limits';
import { UserFacingError } from '../../core/util/errors';
import { EngineError } from '../errors';
import type { EngineInit, StoreName } from '../protocol';
import type { StoreFs } from '../../core/store/storeFs';
import { keyFileIn, userKeyring } from '../../core/crypto/osKeychain';
import { keyForNewStore, type UserKeyring } from '../../core/crypto/userKeys';

/** How the stores are opened: the engine's init, and (tests) the file operations their writes go through. */
export type StoresInit = EngineInit & { storeFs?: StoreFs };
import type { StoreRuntime } from './runtime/storeRuntime';
import { listUntagged } from './services/tagGroups';
import { engineStoreDirs, migrateLegacyStores } from './storeMigration';

export const GLOBAL_PROJECT_ID = 'global';

export { storeFolderName } from '../storeLocation';

export interface Located {
  runtime: StoreRuntime;
  record: MemoryRecord;
}

export class Stores {
  private runtimes: Record<StoreName, StoreRuntime> | undefined;
  private readonly lastWrite: Record<StoreName, number> = { project: 0, global: 0 };

  private constructor(
    readonly project: Store,
    private globalStore: Store,
    /** The user keys that open encrypted stores (docs/encryption.md). */
    readonly keys: UserKeyring,
  ) {}

  /** The global store: read-only while another engine owns it, until this one takes it over (replaceGlobal). */
  get global(): Store {
    return this.globalStore;
  }

  /** Opens both stores (see the file comment); warnings collect what a person should know. */
  static async open(opts: StoresInit, projectId: string, warnings: string[]): Promise<Stores> {
    // The shared store home (storeLocation.ts), or the per-window folders of a host without one.
    const dirs = engineStoreDirs(opts, projectId);
    const keys = engineKeyring(opts);
    const project = await openStore(dirs.project, { ...opts, keys, exclusive: !!opts.exclusive }, warnings);
    try {
      const global = await openStore(dirs.global, { ...opts, keys, exclusive: false }, warnings);
      // Stores of earlier versions (per-window folders) are merged in on first open.
      if (opts.home) await migrateLegacyStores(opts, projectId, [project, global], warnings);
      return new Stores(project, global, keys);
    } catch (e) {
      await project.close();
      throw e;
    }
  }

  /**
   * The global store opened writable, now that its owner went away (server/globalRoute.ts);
   * undefined while another process still holds its lock.
   */
  static async openGlobalWritable(opts: StoresInit, projectId: string, warnings: string[]): Promise<Store | undefined> {
    try {
      return await openStore(engineStoreDirs(opts, projectId).global, { ...opts, keys: engineKeyring(opts), exclusive: true }, warnings);
    } catch (e) {
      if (e instanceof UserFacingError && e.code === 'store_locked') return undefined;
      throw e;
    }
  }

  /** Puts the writable global store in place of the read-only copy (the runtimes must be closed); closes the copy. */
  async replaceGlobal(store: Store): Promise<void> {
    const copy = this.globalStore;
    this.globalStore = store;
    await copy.close();
  }

  store(name: StoreName): Store {
    return name === 'global' ? this.global : this.project;
  }

  /** Installs the runtimes (at open and after each rebuild). */
  setRuntimes(project: StoreRuntime, global: StoreRuntime): void {
    this.runtimes = { project, global };
  }

  runtime(name: StoreName): StoreRuntime {
    if (!this.runtimes) throw new EngineError('engine_unavailable', 'The memory stores are not ready yet.');
    return this.runtimes[name];
  }

  /** Project first, then global. */
  all(): StoreRuntime[] {
    return [this.runtime('project'), this.runtime('global')];
  }

  writable(): StoreRuntime[] {
    return this.all().filter((r) => !r.store.isReadOnly);
  }

  /** The runtimes a scope selects: both when undefined. */
  forScope(scope: MemoryScope | undefined): StoreRuntime[] {
    if (scope === undefined) return this.all();
    if (scope === 'project' || scope === 'global') return [this.runtime(scope)];
    throw new EngineError('invalid_input', `scope: must be "project" or "global", got ${shownValue(scope)}`);
  }

  locate(id: string, includeDeleted = false): Located | undefined {
    for (const runtime of this.all()) {
      const record = runtime.memory.get(id, { includeDeleted });
      if (record) return { runtime, record };
    }
    return undefined;
  }

  mustLocate(id: string, includeDeleted = false): Located {
    const found = this.locate(id, includeDeleted);
    if (!found) throw new EngineError('not_found', `No memory with id ${id}.`);
    return found;
  }

  /** One store's list, or both paged as one list (offsets past the project's items continue into the global store). */
  list(opts: ListOptions): ListResult {
    if (opts.scope !== undefined) return this.forScope(opts.scope as MemoryScope)[0]!.memory.list(opts);
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? LIMIT_RANGES.list.default;
    const p = this.runtime('project').memory.list({ ...opts, offset, limit });
    const items = [...p.items];
    const need = limit - items.length;
    const g = this.runtime('global').memory.list({ ...opts, offset: Math.max(0, offset - p.total), limit: Math.max(1, need) });
    if (need > 0) items.push(...g.items.slice(0, need));
    return { items, total: p.total + g.total, offset, limit };
  }

  /** Untagged memories, paged across the project store then the global one (like list). */
  listUntagged(offset: number, limit: number): ListResult {
    const [p, g] = this.all();
    const first = listUntagged(p!.store, p!.projectId, offset, limit);
    const second = listUntagged(g!.store, g!.projectId, Math.max(0, offset - first.total), limit);
    return { items: [...first.items, ...second.items].slice(0, limit), total: first.total + second.total, offset, limit };
  }

  markWrite(name: StoreName, at = Date.now()): void {
    this.lastWrite[name] = at;
  }

  lastWriteAt(name: StoreName): number {
    return this.lastWrite[name];
  }

  /** Closes both stores (snapshot + lock release); the runtimes must be closed first. */
  async close(): Promise<PromiseSettledResult<void>[]> {
    return Promise.allSettled([this.project.close(), this.global.close()]);
  }
}

/**
 * The keyring of this user (src/core/crypto/osKeychain.ts): the OS keychain, and the key file
 * `<home>/keys/user-keys.json` once chosen. Every process of the user builds the same one.
 */
export function engineKeyring(opts: StoresInit): UserKeyring {
  return userKeyring(keyFileIn(opts.home ?? opts.globalStorageDir ?? opts.storageDir));
}

/** Opens a store writable; if another process holds it, read-only with a warning. */
async function openStore(dir: string, opts: StoresInit & { keys: UserKeyring }, warnings: string[]): Promise<Store> {
  const purpose = `${opts.purpose ?? 'Agent Memory engine'}${opts.ownerId ? ` [${opts.ownerId}]` : ''}`;
  if (opts.ownerId && reclaimOwnLock(dir, purpose))
    warnings.push(`reclaimed the lock of ${dir} left by a crashed engine thread of this window`);
  const base = {
    dir,
    purpose,
    ...(opts.sqlWasmPath ? { sqlWasmPath: opts.sqlWasmPath } : {}),
    ...(opts.migrationsDir ? { migrationsDir: opts.migrationsDir } : {}),
    ...(opts.storeFs ? { fs: opts.storeFs } : {}),
    keys: opts.keys,
    newStoreKey: () => keyForNewStore(opts.keys),
  };
  if (opts.restricted) {
    // Untrusted workspace: read-only when the store exists and is current; otherwise open it
    // writable (creating it) and let the engine refuse every write.
    try {
      return await Store.open({ ...base, readOnly: true });
    } catch {
      warnings.push(`${dir}: not openable read-only (new or needs a migration); opened writable, but restricted mode refuses writes`);
    }
  }
  try {
    return await Store.open(base);
  } catch (e) {
    // exclusive: the caller connects to the owner instead of reading a copy (server/).
    if (!(e instanceof UserFacingError) || e.code !== 'store_locked' || opts.exclusive) throw e;
    warnings.push(
      `${e.message} Opened read-only: memories can be read and searched here, changed only by the process that owns the store.`,
    );
    return Store.open({ ...base, readOnly: true, readOnlyReason: e.message });
  }
}

/** Removes a lock left in `dir` by an earlier engine thread of the same owner in this process. */
function reclaimOwnLock(dir: string, purpose: string): boolean {
  const file = path.join(dir, 'store.lock');
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number; host?: string; purpose?: string };
    if (owner.pid !== process.pid || owner.host !== os.hostname() || owner.purpose !== purpose) return false;
    fs.unlinkSync(file);
    return true;
  } catch {
    return false; // no lock, or not readable: Store.open decides
  }
}
