/**
 * Project id of an absolute path (docs/project-id.md): walk up for an override file or a VCS remote;
 * failing that, strip an agent worktree suffix and try again; failing that, fall back to a path.
 */
import * as path from 'node:path';
import { entryKind, realPath } from './fsRead';
import type { ProjectIdResult } from './types';
import { walkUp } from './walk';
import { stripWorktreeSuffix } from './worktreeSuffix';

/** `absPath` must be absolute and normalized (no trailing slash). */
export function resolvePath(absPath: string): ProjectIdResult {
  const warnings: string[] = [];
  const kind = entryKind(absPath);
  if (kind === undefined) warnings.push(`${absPath} does not exist; resolved from its nearest existing parent`);
  const start = kind === 'file' ? path.dirname(absPath) : absPath;

  let outcome = walkUp(start, warnings);
  // Behind a symlink the logical parents may hold nothing while the physical ones hold the
  // repository (git discovers through the physical path). Only worth a look on a total miss.
  if ('missed' in outcome && outcome.missed.vcsRoot === undefined && kind !== undefined) {
    const real = realPath(start);
    if (real && real !== start) {
      const again = walkUp(real, warnings);
      if ('found' in again) outcome = again;
    }
  }
  if ('found' in outcome) return finish(outcome.found, warnings);

  const split = stripWorktreeSuffix(absPath);
  if (split) {
    const note = `${absPath} is an agent worktree of ${split.root}`;
    const retry = walkUp(split.root, warnings);
    if ('found' in retry) return finish({ ...retry.found, detail: `${retry.found.detail}; ${note}` }, warnings);
    return fallback(retry.missed.vcsRoot ?? split.root, `${note}; ${retry.missed.reason}`, warnings);
  }
  return fallback(outcome.missed.vcsRoot ?? absPath, outcome.missed.reason, warnings);
}

function fallback(id: string, reason: string, warnings: string[]): ProjectIdResult {
  return finish({ id, kind: 'path', root: id, detail: `no remote or override: ${reason}` }, warnings);
}

function finish(result: ProjectIdResult, warnings: string[]): ProjectIdResult {
  return warnings.length ? { ...result, warnings: [...new Set(warnings)] } : result;
}
