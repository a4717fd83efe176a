/**
 * Moves the stores of earlier versions (VS Code's per-window workspace and global storage)
 * into the shared store folder (storeLocation.ts) the first time the shared store opens.
 *
 * Rows are copied, not re-created: every memory keeps its id, dates, version and history; a
 * live memory whose content hash the shared store already holds (the same text saved from two
 * windows) is not copied twice, its history is re-pointed to the memory that stays. The old
 * folder is kept, and renamed `<folder>.migrated` only once every old memory is found in the
 * shared store: a failed or partial merge leaves it where it was, to be merged again next time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store, type Row, type Tx } from '../../core/store/store';
import { errorMessage } from '../../core/util/errors';
import { EngineError } from '../errors';
import {
  GLOBAL_FOLDER,
  ensurePrivateHome,
  ensurePrivateStoreDirs,
  legacyStoreDirs,
  storeDirsIn,
  storeFolderName,
  type StoreDirs,
} from '../storeLocation';
import { plural } from '../../core/text/plural';

export interface MigrationOutcome {
  from: string;
  copied: number;
  duplicates: number;
  history: number;
  /** The old folder's new name once verified. */
  renamedTo?: string;
  /** Why nothing (or not everything) moved. */
  error?: string;
}

interface StoreFiles {
  sqlWasmPath?: string;
  migrationsDir?: string;
}

/** Merges `legacyDir` into `target` unless it is absent or already migrated. */
export async function migrateLegacyStore(
  target: Store,
  legacyDir: string | undefined,
  files: StoreFiles = {},
): Promise<MigrationOutcome | undefined> {
  if (!legacyDir || !fs.existsSync(legacyDir) || !hasStoreFiles(legacyDir)) return undefined;
  let old: Store | undefined;
  try {
    old = await Store.open({ dir: legacyDir, readOnly: true, ...files });
    const outcome = copyInto(old, target, legacyDir);
    const missing = unverified(old, target);
    await old.close();
    old = undefined;
    if (missing) return { ...outcome, error: missing };
    await target.snapshot();
    const renamedTo = `${legacyDir}.migrated`;
    fs.renameSync(legacyDir, renamedTo);
    return { ...outcome, renamedTo };
  } catch (e) {
    await old?.close().catch(() => undefined);
    return { from: legacyDir, copied: 0, duplicates: 0, history: 0, error: errorMessage(e) };
  }
}

/** One line a person can read about what moved (undefined: nothing to say). */
export function describeMigration(outcomes: (MigrationOutcome | undefined)[]): string | undefined {
  const done = outcomes.filter((o): o is MigrationOutcome => !!o);
  if (!done.length) return undefined;
  const parts = done.map((o) =>
    o.error
      ? `could not merge ${o.from} (${o.error}); it was left in place and is merged again on the next start`
      : `${plural(o.copied, 'memory', 'memories')} (${o.duplicates} already present, ${plural(o.history, 'history entry', 'history entries')}) from ${o.from} (kept as ${o.renamedTo})`,
  );
  return `Moved to the shared memory store: ${parts.join('; ')}.`;
}

function hasStoreFiles(dir: string): boolean {
  return fs.readdirSync(dir).some((f) => f !== 'store.lock');
}

function copyInto(old: Store, target: Store, from: string): MigrationOutcome {
  const columns = target
    .all<{ name: string }>('PRAGMA table_info(memories)')
    .map((c) => c.name)
    .filter((c) => c !== 'rid');
  const oldColumns = new Set(old.all<{ name: string }>('PRAGMA table_info(memories)').map((c) => c.name));
  const shared = columns.filter((c) => oldColumns.has(c));
  const outcome: MigrationOutcome = { from, copied: 0, duplicates: 0, history: 0 };
  target.transaction((tx) => {
    // Vectors first: the vector triggers then mark the copied memories for the index catch-up.
    for (const e of old.all('SELECT space, text_hash, dim, vector, created_at FROM embeddings')) {
      tx.run('INSERT OR IGNORE INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, ?)', [
        e.space!,
        e.text_hash!,
        e.dim!,
        e.vector!,
        e.created_at!,
      ]);
    }
    const idMap = new Map<string, string>();
    for (const row of old.all(`SELECT rid, ${shared.join(', ')} FROM memories ORDER BY rid`)) {
      const kept = existingTwin(tx, row);
      if (kept) {
        idMap.set(String(row.id), kept);
        outcome.duplicates++;
        continue;
      }
      tx.run(
        `INSERT INTO memories (${shared.join(', ')}) VALUES (${shared.map(() => '?').join(', ')})`,
        shared.map((c) => row[c] ?? null),
      );
      const rid = tx.get<{ rid: number }>('SELECT rid FROM memories WHERE id = ?', [row.id!])!.rid;
      for (const t of old.all<{ tag: string }>('SELECT tag FROM memory_tags WHERE rid = ?', [row.rid!])) {
        tx.run('INSERT OR IGNORE INTO memory_tags (tag, rid) VALUES (?, ?)', [t.tag, rid]);
      }
      outcome.copied++;
    }
    outcome.history = copyHistory(old, tx, idMap);
  });
  return outcome;
}

/** The shared store's memory that makes `row` redundant: the same id, or the same live content. */
function existingTwin(tx: Tx, row: Row): string | undefined {
  const same = tx.get<{ id: string }>('SELECT id FROM memories WHERE id = ?', [row.id!]);
  if (same) return same.id;
  if (row.deleted_at !== null && row.deleted_at !== undefined) return undefined;
  const twin = tx.get<{ id: string }>('SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
    row.project_id!,
    row.content_hash!,
  ]);
  return twin?.id;
}

function copyHistory(old: Store, tx: Tx, idMap: Map<string, string>): number {
  let n = 0;
  const cols = 'id, memory_id, event, old_content, new_content, old_json, new_json, changed_by, reason, metadata_json, created_at';
  for (const h of old.all(`SELECT ${cols} FROM memory_history`)) {
    const memoryId = h.memory_id === null ? null : (idMap.get(String(h.memory_id)) ?? h.memory_id!);
    tx.run(`INSERT OR IGNORE INTO memory_history (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      h.id!,
      memoryId,
      h.event!,
      h.old_content ?? null,
      h.new_content ?? null,
      h.old_json ?? null,
      h.new_json ?? null,
      h.changed_by ?? null,
      h.reason ?? null,
      h.metadata_json ?? '{}',
      h.created_at!,
    ]);
    n += tx.changes();
  }
  return n;
}

/** Every old memory is in the target (by id, or live by content hash): undefined, else what is missing. */
function unverified(old: Store, target: Store): string | undefined {
  let missing = 0;
  for (const row of old.all('SELECT id, project_id, content_hash, deleted_at FROM memories')) {
    const byId = target.get('SELECT 1 AS x FROM memories WHERE id = ?', [row.id!]);
    const byHash =
      row.deleted_at === null &&
      target.get('SELECT 1 AS x FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
        row.project_id!,
        row.content_hash!,
      ]);
    if (!byId && !byHash) missing++;
  }
  return missing ? `${plural(missing, 'memory was', 'memories were')} not found in the shared store after the copy` : undefined;
}

interface EngineStoreOptions extends StoreFiles {
  home?: string;
  storageDir?: string;
  globalStorageDir?: string;
  restricted?: boolean;
}

/** The engine's two store folders: under `home` when set, else the old per-window layout. */
export function engineStoreDirs(opts: EngineStoreOptions, projectId: string): StoreDirs {
  if (opts.home) {
    ensurePrivateHome(opts.home);
    const dirs = storeDirsIn(opts.home, projectId);
    ensurePrivateStoreDirs(dirs);
    return dirs;
  }
  if (!opts.storageDir || !opts.globalStorageDir)
    throw new EngineError('invalid_input', 'EngineInit needs `home` (or both storageDir and globalStorageDir).');
  return {
    project: path.join(opts.storageDir, 'projects', storeFolderName(projectId)),
    global: path.join(opts.globalStorageDir, GLOBAL_FOLDER),
  };
}

/**
 * Merges the old per-window stores into the opened shared ones ([project, global]) and adds
 * one warning saying what moved. Skipped for read-only stores (restricted window, not the owner).
 */
export async function migrateLegacyStores(
  opts: EngineStoreOptions,
  projectId: string,
  stores: [Store, Store],
  warnings: string[],
): Promise<void> {
  if (opts.restricted) return;
  const legacy = legacyStoreDirs(opts.storageDir, opts.globalStorageDir, projectId);
  const files = {
    ...(opts.sqlWasmPath ? { sqlWasmPath: opts.sqlWasmPath } : {}),
    ...(opts.migrationsDir ? { migrationsDir: opts.migrationsDir } : {}),
  };
  const outcomes: (MigrationOutcome | undefined)[] = [];
  for (const [store, dir] of [
    [stores[0], legacy.project],
    [stores[1], legacy.global],
  ] as const) {
    if (!store.isReadOnly && dir && path.resolve(dir) !== path.resolve(store.dir))
      outcomes.push(await migrateLegacyStore(store, dir, files));
  }
  const message = describeMigration(outcomes);
  if (message) warnings.push(message);
}
