/**
 * Folders that may hold a store's socket, secret, lock or temporary files: they must be private
 * to this OS user (ARCHITECTURE.md "One owner, many clients"). Another user who can write such a
 * folder could listen in the owner's place, replace the secret, or swap the files under it.
 *
 * A folder passes when it is a real folder (a symbolic link is not followed where another user
 * could have planted it), owned by this user's uid, and writable by nobody else; a runtime folder
 * (the sockets of stores too deep for a socket path) must also be unreadable by others (0700).
 * A folder that fails is refused with a sentence naming it, saying why and what to do; it is
 * not repaired behind the user's back, since someone else may have made it that way. The one
 * exception is `tighten`: a folder of this user inside a home already found private (a store
 * folder an older version made 0755 or 0775) is set to 0700, since nobody else could reach it.
 *
 * Windows has no uids or mode bits: nothing is checked there (named pipes, and the handshake's
 * challenge–response, handshake.ts, protect the owner there).
 */
import * as fs from 'node:fs';
import { EngineError } from '../errors';

export interface FolderRules {
  /** What the folder is, for the sentence ("The store home", "The socket folder"). */
  what: string;
  /** What else to do when it cannot be used: the end of a sentence ("choose a store home of your own (…)."). */
  otherwise: string;
  /** Follow a symbolic link (a home the user linked elsewhere) instead of refusing it. */
  followLink?: boolean;
  /** Refuse any access by group or others (0700), not only writing. */
  strict?: boolean;
  /** A folder of this user with group or other bits is set to 0700 instead of refused (see the file comment). */
  tighten?: boolean;
}

const ownUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

const modeOf = (st: fs.Stats) => (st.mode & 0o777).toString(8).padStart(3, '0');

/** Why `dir` may not hold a store's files, or undefined when it is private to this user (or this OS has no uids). */
export function folderProblem(dir: string, rules: FolderRules): string | undefined {
  const uid = ownUid();
  if (uid === undefined) return undefined;
  let st: fs.Stats;
  try {
    st = rules.followLink ? fs.statSync(dir) : fs.lstatSync(dir);
  } catch (e) {
    return `${rules.what} ${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}). Check it, or ${rules.otherwise}`;
  }
  if (st.isSymbolicLink()) {
    return (
      `${rules.what} ${dir} is a symbolic link, which another user may have planted there, so Agent Memory does not follow it. ` +
      `Remove the link (rm ${dir}) and Agent Memory makes a private folder in its place, or ${rules.otherwise}`
    );
  }
  if (!st.isDirectory()) return `${rules.what} ${dir} is not a folder. Remove it, or ${rules.otherwise}`;
  if (st.uid !== uid) {
    return (
      `${rules.what} ${dir} belongs to another user (uid ${st.uid}; you are uid ${uid}), so Agent Memory keeps none of its files there. ` +
      `Have it removed (by its owner or by root), or ${rules.otherwise}`
    );
  }
  if (rules.tighten && (st.mode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    return undefined;
  }
  if ((st.mode & 0o022) !== 0) {
    return (
      `${rules.what} ${dir} can be changed by other users (mode ${modeOf(st)}): one of them could replace its files or listen in ` +
      `Agent Memory's place. Make it private (chmod 700 ${dir}), or ${rules.otherwise}`
    );
  }
  if (rules.strict && (st.mode & 0o077) !== 0) {
    return `${rules.what} ${dir} is open to other users (mode ${modeOf(st)}). Make it private (chmod 700 ${dir}), or ${rules.otherwise}`;
  }
  return undefined;
}

/** Throws `not_private` with the sentence of folderProblem when `dir` is not private to this user. */
export function assertPrivateFolder(dir: string, rules: FolderRules): void {
  const problem = folderProblem(dir, rules);
  if (problem) throw new EngineError('not_private', problem);
}

/** Creates `dir` (mode 0700, parents too) when it is missing, then asserts it is private. */
export function ensurePrivateFolder(dir: string, rules: FolderRules): void {
  // A file or a link already there (even a dangling one) is left alone: the check below reports it.
  if (!lexists(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  assertPrivateFolder(dir, rules);
}

function lexists(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Why the file `file` (a socket, the owner's record) is not this user's own; undefined when it
 * is, or when it is not there (any more: an owner may be replacing it).
 */
export function fileProblem(file: string, kind: 'socket' | 'file'): string | undefined {
  const uid = ownUid();
  if (uid === undefined) return undefined;
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return undefined;
  const isKind = kind === 'socket' ? st.isSocket() : st.isFile();
  if (!isKind) return `${file} is not a ${kind === 'socket' ? 'socket' : 'plain file'}. Remove it: Agent Memory makes a new one.`;
  if (st.uid !== uid)
    return `${file} belongs to another user (uid ${st.uid}; you are uid ${uid}). Remove it: Agent Memory makes a new one.`;
  if (kind === 'file' && (st.mode & 0o077) !== 0) {
    return `${file} can be read by other users (mode ${modeOf(st)}). Remove it: Agent Memory makes a new, private one.`;
  }
  return undefined;
}
