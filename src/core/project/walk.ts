/**
 * One walk from a directory up to the filesystem root. The nearest directory holding an
 * override file, `.git` or `.hg` is the project root; within it the override file wins over
 * git, and git over hg. A repository without a usable remote still ends the walk: it is its
 * own project, not part of whatever repository happens to enclose it.
 */
import * as path from 'node:path';
import { entryKind, type EntryKind } from './fsRead';
import { inspectGit } from './git';
import { inspectHg } from './hg';
import { readOverride, type Override } from './override';
import { canonicalizeRemoteUrl, redactUrl } from './remoteUrl';
import type { ProjectIdResult } from './types';

export type WalkOutcome =
  | { found: ProjectIdResult }
  /** `vcsRoot`: the checkout (or main checkout) of a repository that gave no id. */
  | { missed: { vcsRoot?: string; reason: string } };

const MAX_DEPTH = 512; // guards against a pathological path; real trees are far shallower

export function walkUp(start: string, warnings: string[]): WalkOutcome {
  let dir = start;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const override = readOverride(dir, warnings);
    if (override) return { found: fromOverride(override, dir) };
    const git = entryKind(path.join(dir, '.git'));
    if (git === 'dir' || git === 'file') return fromGit(dir, git, warnings);
    if (entryKind(path.join(dir, '.hg')) === 'dir') return fromHg(dir, warnings);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { missed: { reason: `no override file, .git or .hg at or above ${start}` } };
}

function fromOverride(o: Override, root: string, note = ''): ProjectIdResult {
  return { id: o.name, kind: 'override', root, detail: `"name:" in ${o.file}${note}` };
}

function fromGit(dir: string, marker: EntryKind, warnings: string[]): WalkOutcome {
  const g = inspectGit(dir, marker, warnings);
  const worktreeNote = g.mainRoot ? ` (linked worktree of ${g.mainRoot})` : '';
  // A linked worktree shares its main checkout's override, even an untracked one.
  if (g.mainRoot && g.mainRoot !== dir) {
    const o = readOverride(g.mainRoot, warnings);
    if (o) return { found: fromOverride(o, dir, worktreeNote) };
  }
  const base = g.mainRoot ?? dir; // relative local remotes are relative to the main checkout
  if (!g.remote) return { missed: { vcsRoot: base, reason: `git repository at ${dir}: ${g.reason}` } };
  const { name, url, configPath } = g.remote;
  const id = canonicalizeRemoteUrl(url, base);
  const where = `remote "${name}" (${redactUrl(url)}) in ${configPath}`;
  if (!id) {
    warnings.push(`cannot make a project id of ${where}`);
    return { missed: { vcsRoot: base, reason: `git repository at ${dir}: unusable ${where}` } };
  }
  const noOrigin = name === 'origin' ? '' : ', no "origin" remote';
  return { found: { id, kind: 'git-remote', root: dir, detail: `${where}${noOrigin}${worktreeNote}` } };
}

function fromHg(dir: string, warnings: string[]): WalkOutcome {
  const h = inspectHg(dir, warnings);
  if (!h.remote) return { missed: { vcsRoot: dir, reason: `mercurial repository at ${dir}: ${h.reason}` } };
  const { name, url, hgrcPath } = h.remote;
  const id = canonicalizeRemoteUrl(url, dir); // hg resolves relative paths against the repository root
  const where = `paths.${name} (${redactUrl(url)}) in ${hgrcPath}`;
  if (!id) {
    warnings.push(`cannot make a project id of ${where}`);
    return { missed: { vcsRoot: dir, reason: `mercurial repository at ${dir}: unusable ${where}` } };
  }
  return { found: { id, kind: 'hg-remote', root: dir, detail: where } };
}
