/**
 * One writer per store directory. The lock file holds the owner's pid, host and process start
 * time, and is created atomically WITH its content (a temp file linked into place), so a
 * contender never sees an empty lock of a live owner. A lock whose owner is gone (crash,
 * kill -9) is stale and taken over; a lock whose owner may be alive never is: when that cannot
 * be told (another host, no start time) the opener is refused with a message that says why and
 * how to take the store over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { UserFacingError } from '../util/errors';

export interface LockInfo {
  pid: number;
  host: string;
  procStart: string | null;
  token: string;
  acquiredAt: string;
  purpose?: string;
}

const STORE_LOCK = 'store.lock';

/** An unreadable (empty or partial) lock younger than this may still be being written: not stale. */
const PARTIAL_LOCK_GRACE_MS = 10_000;

export class StoreLockedError extends UserFacingError {
  constructor(
    readonly dir: string,
    readonly owner: LockInfo,
    /** Why the owner counts as alive when that is not certain, and how to take over. */
    readonly why?: string,
  ) {
    super(
      `The memory store at ${dir} is in use by ${owner.purpose ?? 'another process'} (pid ${owner.pid} on ${owner.host}` +
        `, since ${owner.acquiredAt}).${why ? ` ${why}` : ''}`,
      'store_locked',
    );
  }
}

/** Linux: the fields of /proc/<pid>/stat after the command name (state first); null elsewhere. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Linux: the start time of a process (field 22 of /proc/<pid>/stat); null elsewhere. */
function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

type Verdict = { alive: true; why?: string } | { alive: false; tookOver: string };

/** Whether the lock's owner may be alive; when it is surely gone, the warning for taking it over. */
function judge(info: LockInfo, file: string): Verdict {
  const howTo = `If no Agent Memory process uses it any more, delete ${file} to take the store over.`;
  if (info.host !== os.hostname()) {
    return {
      alive: true,
      why: `The lock was taken on another computer (${info.host}), so whether its owner still runs cannot be checked from here. ${howTo}`,
    };
  }
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH')
      return { alive: false, tookOver: `took over a stale lock left by pid ${info.pid} (it is no longer running)` };
  }
  const stat = procStat(info.pid);
  if (stat?.[0] === 'Z') {
    // Killed or ended, not yet reaped by its parent: it runs no code and holds nothing.
    return { alive: false, tookOver: `took over a stale lock left by pid ${info.pid} (that process has ended)` };
  }
  if (!info.procStart) {
    return {
      alive: true,
      why: `The lock records no process start time (written by an older version), so pid ${info.pid}, which is running, may be a different program now. ${howTo}`,
    };
  }
  const now = stat?.[19] ?? null;
  if (now !== null && now !== info.procStart) {
    return {
      alive: false,
      tookOver: `took over a stale lock left by pid ${info.pid} (that process ended; the pid now belongs to another process)`,
    };
  }
  return { alive: true };
}

type ReadLock = { info: LockInfo } | { unreadable: true; ageMs: number } | { missing: true };

function readLock(file: string): ReadLock {
  let text: string;
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { missing: true };
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    if (typeof info.pid === 'number' && typeof info.token === 'string') return { info };
  } catch {
    // empty or partial
  }
  return { unreadable: true, ageMs: Date.now() - mtimeMs };
}

/** Creates `file` holding `content`, or returns false when it exists. Never leaves it empty or partial. */
function createWithContent(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'wx');
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(tmp, file); // atomic, and fails with EEXIST like O_EXCL
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Whether the lock of `dir` is held by a process that may be alive — acquire() would refuse or
 * wait — without touching it: false when there is no lock, its owner is surely gone, or
 * `leftover(info)` says the lock is one the caller may reclaim (its own, of an engine it lost).
 */
export function lockHeld(dir: string, name = STORE_LOCK, leftover?: (info: LockInfo) => boolean): boolean {
  const file = path.join(dir, name);
  const cur = readLock(file);
  if ('missing' in cur) return false;
  if ('unreadable' in cur) return cur.ageMs < PARTIAL_LOCK_GRACE_MS;
  if (leftover?.(cur.info)) return false;
  return judge(cur.info, file).alive;
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class StoreLock {
  private constructor(
    private readonly file: string,
    private readonly token: string,
    /** The warning when a stale lock was taken over. */
    readonly tookOver: string | undefined,
  ) {}

  /** `name`: another lock file of the same kind in the folder (the engine's takeover claim), with the same rules. */
  static acquire(dir: string, purpose?: string, name = STORE_LOCK): StoreLock {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    const info: LockInfo = {
      pid: process.pid,
      host: os.hostname(),
      procStart: processStartTime(process.pid),
      token: randomUUID(),
      acquiredAt: new Date().toISOString(),
      purpose,
    };
    let tookOver: string | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      if (createWithContent(file, JSON.stringify(info))) return new StoreLock(file, info.token, tookOver);
      const cur = readLock(file);
      if ('missing' in cur) continue;
      let verdictOver: string;
      if ('unreadable' in cur) {
        if (cur.ageMs < PARTIAL_LOCK_GRACE_MS) {
          sleepMs(100); // an older version may be writing it right now
          continue;
        }
        verdictOver = `took over an unreadable lock file (empty or partial, last written ${Math.round(cur.ageMs / 1000)} s ago)`;
      } else {
        const v = judge(cur.info, file);
        if (v.alive) throw new StoreLockedError(dir, cur.info, v.why);
        verdictOver = v.tookOver;
      }
      if (StoreLock.moveAside(file, info.token, 'info' in cur ? cur.info.token : undefined)) tookOver = verdictOver;
    }
    const cur = readLock(file);
    if ('info' in cur) throw new StoreLockedError(dir, cur.info);
    throw new UserFacingError(
      `The memory store at ${dir} is being locked by another process right now (its lock file is still incomplete); try again. ` +
        `If this persists, delete ${file}.`,
      'store_locked',
    );
  }

  /** Moves a stale lock out of the way; only one contender wins the rename. False if it changed meanwhile. */
  private static moveAside(file: string, myToken: string, staleToken: string | undefined): boolean {
    const aside = `${file}.stale-${myToken}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      return false; // lost the race
    }
    const moved = readLock(aside);
    // Someone replaced the stale lock with a live one in between: put it back.
    if ('info' in moved && moved.info.token !== staleToken) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // the live owner's lock is gone or replaced again: nothing to restore
      }
      fs.rmSync(aside, { force: true });
      return false;
    }
    fs.rmSync(aside, { force: true });
    return true;
  }

  release(): void {
    try {
      const cur = JSON.parse(fs.readFileSync(this.file, 'utf8')) as LockInfo;
      if (cur.token === this.token) fs.unlinkSync(this.file);
    } catch {
      // Already gone.
    }
  }
}
