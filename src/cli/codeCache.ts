/**
 * Loading a bundle (dist/engine.js, 2.6 MB) with a V8 code cache kept in the user's cache folder.
 *
 * Why: a fresh `agent-memory mcp` compiles its engine bundle before it can open the store, and an
 * agent's first answer waits for that: 30 ms to compile the bundle's top level, and more to
 * compile each function the first time it runs. With the code V8 made for the same file the last
 * time, the bundle's top level takes 5 ms, and the functions that ran before the cache was written
 * (the store's open, the first search) are not compiled again. Node 22 has this built in
 * (module.enableCompileCache); Node 20, which we support, does not.
 *
 * Safety: the cache is in the user's own cache folder (made private), never a shared temporary
 * one: cached code is code. V8's own check of a cache compares only the source's length and its
 * version and flags (a cache made for another source of the same length is taken, and runs that
 * source's code), and a release build does not checksum the code a cache holds. So each file is
 * named by and sealed with the SHA-256 of the source, the Node version and the architecture, and
 * carries the SHA-256 of its cache; both are checked before V8 sees it. A refused, damaged or
 * unreadable cache only costs the compile, and the file is written again. Nothing here can stop
 * the bundle from loading: any failure of the cache is ignored.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { ensurePrivateFolder, folderProblem, type FolderRules } from '../engine/socket/privateDir';
import { orUndefined } from '../core/util/orUndefined';

/** The user's cache folder for compiled code, by the platform's convention; undefined where it cannot be known. */
export function userCodeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AGENT_MEMORY_CODE_CACHE === '0') return undefined;
  const home = os.homedir();
  if (process.platform === 'win32') {
    const local = env.LOCALAPPDATA ?? (home ? path.join(home, 'AppData', 'Local') : undefined);
    return local ? path.join(local, 'agent-memory', 'Cache', 'code') : undefined;
  }
  if (process.platform === 'darwin') return home ? path.join(home, 'Library', 'Caches', 'agent-memory', 'code') : undefined;
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : home ? path.join(home, '.cache') : undefined;
  return xdg ? path.join(xdg, 'agent-memory', 'code') : undefined;
}

/**
 * The SHA-256 of what V8 compiles for `source` on this Node and architecture: what a cache file
 * is named by and sealed with. V8's own check of a cache only compares the source's length (a
 * cache made for another source of the same length is taken, and runs the other source's code),
 * so the content itself decides.
 */
function sourceKey(source: Buffer): Buffer {
  return createHash('sha256').update(process.version).update('\0').update(process.arch).update('\0').update(source).digest();
}

/**
 * The cache files of the bundle whose content is `source` (see {@link sourceKey}): `full`, written
 * after the first seconds (with the functions that ran), and `top`, written at once by a run that
 * found none (the bundle's top level: a short command ends before `full`).
 */
export function codeCacheFiles(target: string, dir: string): { full: string; top: string } {
  return cacheFiles(target, dir, sourceKey(fs.readFileSync(target)));
}

function cacheFiles(target: string, dir: string, key: Buffer): { full: string; top: string } {
  const base = path.join(dir, `${path.basename(target)}-${key.toString('hex').slice(0, 24)}`);
  return { full: `${base}.v8cache`, top: `${base}.top.v8cache` };
}

/** How the cache folder is checked: the rules of the store's private folders (privateDir.ts). */
const FOLDER: FolderRules = { what: 'The code cache folder', otherwise: 'set AGENT_MEMORY_CODE_CACHE=0.' };

/**
 * Whether `dir` may hold code to run: this user's, and writable by nobody else (another user who
 * can write it could put their code there). A folder that is not there yet is fine: it is made
 * (0700) when the first cache is written.
 */
function trusted(dir: string): boolean {
  return !fs.existsSync(dir) || folderProblem(dir, FOLDER) === undefined;
}

export interface CodeCacheResult {
  /** Which cache V8 took: `full`, `top`, or none. */
  used: 'full' | 'top' | undefined;
  /** A cache file was read and V8 refused it (another build, another V8, damaged): it is written again. */
  rejected: boolean;
  /** Resolves once the full cache is written, with whether it was (no folder, or nothing to do: false). */
  written: Promise<boolean>;
  /** What the file put in `module.exports`. */
  exports: unknown;
}

/**
 * Runs the CommonJS file `target` as Node would (its own `require`, `module`, `__filename`), with
 * the code cache of `dir` when there is one. Unless the full cache was taken, it is written
 * `fullAfterMs` later (if the thread still runs); a run that found no cache at all first writes
 * the top level's at once.
 */
export function runWithCodeCache(target: string, dir: string | undefined, fullAfterMs = 3000): CodeCacheResult {
  const bytes = fs.readFileSync(target);
  const key = sourceKey(bytes);
  const files = dir && trusted(dir) ? cacheFiles(target, dir, key) : undefined;
  const source = bytes.toString('utf8');
  const code = wrap(source.startsWith('#!') ? `//${source.slice(2)}` : source);
  let script: vm.Script | undefined;
  let used: CodeCacheResult['used'];
  let rejected = false;
  for (const kind of ['full', 'top'] as const) {
    const stored = files ? orUndefined(() => fs.readFileSync(files[kind])) : undefined;
    if (!stored) continue;
    const cachedData = unseal(stored, key);
    if (!cachedData) {
      rejected = true;
      continue;
    }
    const candidate = new vm.Script(code, { filename: target, cachedData });
    if (candidate.cachedDataRejected) {
      rejected = true;
      continue;
    }
    script = candidate;
    used = kind;
    break;
  }
  script ??= new vm.Script(code, { filename: target });
  const mod: { exports: unknown; filename: string; id: string; loaded: boolean } = {
    exports: {},
    filename: target,
    id: target,
    loaded: false,
  };
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void;
  run.call(mod.exports, mod.exports, createRequire(target), mod, target, path.dirname(target));
  mod.loaded = true;
  if (files && used === undefined) writeCache(script, files.top, key);
  const ready = script;
  const written =
    files && used !== 'full'
      ? new Promise<boolean>((resolve) => setTimeout(() => resolve(writeCache(ready, files.full, key)), fullAfterMs).unref())
      : Promise.resolve(false);
  return { used, rejected, written, exports: mod.exports };
}

/** Caches of other builds of the same bundle are removed when unused this long. */
export const STALE_CACHE_MS = 30 * 24 * 3600 * 1000;

/**
 * Writes the script's code cache to `file` (a temporary file, then a rename: readers see all or
 * nothing), and removes the caches of other builds of the bundle not written for a month (each
 * update of the extension or the CLI leaves its own).
 */
function writeCache(script: vm.Script, file: string, key: Buffer): boolean {
  return (
    orUndefined(() => {
      const dir = path.dirname(file);
      ensurePrivateFolder(dir, FOLDER);
      const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      fs.writeFileSync(temp, seal(script.createCachedData(), key), { mode: 0o600 });
      fs.renameSync(temp, file);
      const prefix = path.basename(file).replace(/-[0-9a-f]+(\.top)?\.v8cache$/, '-');
      for (const other of orUndefined(() => fs.readdirSync(dir)) ?? []) {
        if (!other.startsWith(prefix) || other === path.basename(file)) continue;
        const at = path.join(dir, other);
        const age = Date.now() - (orUndefined(() => fs.statSync(at).mtimeMs) ?? Date.now());
        if (age > STALE_CACHE_MS) orUndefined(() => fs.rmSync(at, { force: true }));
      }
      return true;
    }) ?? false
  );
}

const MAGIC = Buffer.from('AMV8CC2\n');

/**
 * A cache file: MAGIC, the source's key, the SHA-256 of the cache, the cache. V8's release builds
 * do not checksum the code in a cache, so a damaged file (a bad disk, a write cut short) could be
 * run as code, and V8 takes a cache made for another source of the same length: both are checked
 * here before V8 sees the cache.
 */
function seal(data: Buffer, key: Buffer): Buffer {
  return Buffer.concat([MAGIC, key, createHash('sha256').update(data).digest(), data]);
}

/** The cache inside a sealed file made for `key`, or undefined when it is not one, is another's, or was damaged. */
function unseal(file: Buffer, key: Buffer): Buffer | undefined {
  const start = MAGIC.length + 64;
  if (file.length <= start || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (!file.subarray(MAGIC.length, MAGIC.length + 32).equals(key)) return undefined;
  const data = file.subarray(start);
  return createHash('sha256')
    .update(data)
    .digest()
    .equals(file.subarray(MAGIC.length + 32, start))
    ? data
    : undefined;
}
