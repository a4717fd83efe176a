/**
 * One writer per store directory. The lock file holds the owner's pid, host and
 * process start time; a lock whose owner is gone (crash, kill -9) is stale and
 * taken over. Process start time guards against a recycled pid.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { UserFacingError } from '../util/errors';

interface LockInfo {
  pid: number;
  host: string;
  procStart: string | null;
  token: string;
  acquiredAt: string;
  purpose?: string;
}

export class StoreLockedError extends UserFacingError {
  constructor(
    readonly dir: string,
    readonly owner: LockInfo,
  ) {
    super(
      `The memory store at ${dir} is in use by another process (pid ${owner.pid} on ${owner.host}` +
        `${owner.purpose ? `, ${owner.purpose}` : ''}, since ${owner.acquiredAt}).`,
      'store_locked',
    );
  }
}

/** Linux: the start time of a process (field 22 of /proc/<pid>/stat); null elsewhere. */
function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const afterComm = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return afterComm[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(info: LockInfo): boolean {
  if (info.host !== os.hostname()) return true; // cannot tell: assume alive (shared folder)
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (info.procStart) {
    const now = processStartTime(info.pid);
    if (now !== null && now !== info.procStart) return false; // pid was recycled
  }
  return true;
}

export class StoreLock {
  private constructor(
    private readonly file: string,
    private readonly token: string,
    readonly tookOverStale: LockInfo | undefined,
  ) {}

  static acquire(dir: string, purpose?: string): StoreLock {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'store.lock');
    const info: LockInfo = {
      pid: process.pid,
      host: os.hostname(),
      procStart: processStartTime(process.pid),
      token: randomUUID(),
      acquiredAt: new Date().toISOString(),
      purpose,
    };
    let staleOwner: LockInfo | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const fd = fs.openSync(file, 'wx');
        fs.writeSync(fd, JSON.stringify(info));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        return new StoreLock(file, info.token, staleOwner);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let owner: LockInfo | undefined;
      try {
        owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
      } catch {
        owner = undefined; // torn lock file from a crash mid-write: stale
      }
      if (owner && isAlive(owner)) throw new StoreLockedError(dir, owner);
      // Stale: move it aside atomically; only one contender wins the rename.
      const aside = `${file}.stale-${info.token}`;
      try {
        fs.renameSync(file, aside);
        const moved = fs.readFileSync(aside, 'utf8');
        // If someone else already replaced the stale lock with a live one, put it back.
        if (owner && !moved.includes(owner.token)) {
          fs.renameSync(aside, file);
          continue;
        }
        fs.unlinkSync(aside);
        staleOwner = owner ?? { pid: -1, host: '?', procStart: null, token: '?', acquiredAt: '?' };
      } catch {
        // Lost the race; try again.
      }
    }
    throw new Error(`could not acquire the store lock at ${file}`);
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
