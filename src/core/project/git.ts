/**
 * Reads the remote of a git checkout from files alone (never runs git): the `.git` directory,
 * or a `.git` file (`gitdir: <path>`, used by linked worktrees and submodules) followed to
 * the real git dir, then `commondir` to the shared dir that holds `config`.
 */
import * as path from 'node:path';
import { entryKind, readSmallFile, type EntryKind } from './fsRead';
import { parseGitConfig, type GitConfigEntry } from './gitConfig';

const MAX_GITFILE_BYTES = 64 * 1024;
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface GitRemote {
  name: string;
  /** The url as configured, after `url.<base>.insteadOf` rewriting. */
  url: string;
  configPath: string;
}

export interface GitInspection {
  remote?: GitRemote;
  /** Main checkout of a linked worktree (or the bare repository it belongs to). */
  mainRoot?: string;
  /** Why there is no remote, when there is none. */
  reason?: string;
}

/** Inspects the checkout at `dir`, whose `.git` entry is of kind `marker`. Problems go to `warnings`. */
export function inspectGit(dir: string, marker: EntryKind, warnings: string[]): GitInspection {
  const dotGit = path.join(dir, '.git');
  const gitDir = marker === 'dir' ? dotGit : followGitFile(dotGit, warnings);
  if (!gitDir) return { reason: `${dotGit} is a file without a usable "gitdir:" line` };
  if (entryKind(gitDir) !== 'dir') {
    warnings.push(`${dotGit} points to ${gitDir}, which is not a directory`);
    return { reason: `git dir ${gitDir} is missing` };
  }
  const commonDir = readCommonDir(gitDir);
  const mainRoot = commonDir === gitDir ? undefined : mainCheckoutOf(commonDir);
  const configPath = path.join(commonDir, 'config');
  const read = readSmallFile(configPath, MAX_CONFIG_BYTES);
  if (!read.ok) {
    if (entryKind(configPath) === undefined) return { mainRoot, reason: `no ${configPath}` };
    const problem = `cannot read ${configPath} (${read.error})`;
    warnings.push(problem);
    return { mainRoot, reason: problem };
  }
  const entries = parseGitConfig(read.text);
  const remote = pickRemote(entries);
  if (!remote) return { mainRoot, reason: `no remote with a url in ${configPath}` };
  return { mainRoot, remote: { name: remote.name, url: applyInsteadOf(remote.url, entries), configPath } };
}

/** The git dir named by a `.git` file; relative paths are relative to the file's directory. */
function followGitFile(file: string, warnings: string[]): string | undefined {
  const read = readSmallFile(file, MAX_GITFILE_BYTES);
  if (!read.ok) {
    warnings.push(`cannot read ${file} (${read.error})`);
    return undefined;
  }
  const m = /^gitdir:[ \t]*(.*?)[ \t\r]*$/m.exec(read.text);
  if (!m || !m[1]) {
    warnings.push(`${file} is not a "gitdir: <path>" file`);
    return undefined;
  }
  return path.resolve(path.dirname(file), m[1]);
}

/** A linked worktree's git dir has a `commondir` file (usually `../..`) naming the shared dir. */
function readCommonDir(gitDir: string): string {
  const file = path.join(gitDir, 'commondir');
  if (entryKind(file) !== 'file') return gitDir;
  const read = readSmallFile(file, MAX_GITFILE_BYTES);
  const rel = read.ok ? read.text.trim() : '';
  return rel ? path.resolve(gitDir, rel) : gitDir;
}

/** `/repo/.git` → `/repo`; a bare repository (`/srv/repo.git`) stands for itself. */
function mainCheckoutOf(commonDir: string): string {
  return path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir;
}

/** `origin` if it has a url, else the first remote (in file order) that has one. */
function pickRemote(entries: GitConfigEntry[]): { name: string; url: string } | undefined {
  let first: { name: string; url: string } | undefined;
  for (const e of entries) {
    if (e.section !== 'remote' || e.key !== 'url' || e.subsection === undefined || !e.value) continue;
    if (e.subsection === 'origin') return { name: 'origin', url: e.value };
    first ??= { name: e.subsection, url: e.value };
  }
  return first;
}

/** git's `[url "<base>"] insteadOf = <prefix>` rewriting; the longest matching prefix wins. */
function applyInsteadOf(url: string, entries: GitConfigEntry[]): string {
  let best: { base: string; prefix: string } | undefined;
  for (const e of entries) {
    if (e.section !== 'url' || e.key !== 'insteadof' || e.subsection === undefined || !e.value) continue;
    if (url.startsWith(e.value) && (!best || e.value.length > best.prefix.length)) {
      best = { base: e.subsection, prefix: e.value };
    }
  }
  return best ? best.base + url.slice(best.prefix.length) : url;
}
