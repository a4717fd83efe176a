/**
 * Project id normalization (docs/project-id.md): agents send their working directory as the project
 * id; this turns it into a stable identity (override name, canonical remote URL, or path)
 * from files alone. The same resolver serves reads and writes.
 */
import { ProjectIdResolver } from './resolver';
import type { ProjectIdResult, ResolveOptions } from './types';

export type { ProjectIdKind, ProjectIdResult, ResolveOptions } from './types';
export { ProjectIdResolver, type ResolverOptions } from './resolver';
export { computeProjectId } from './resolve';
export { canonicalizeRemoteUrl } from './remoteUrl';
export { normalizeCanonicalId } from './canonicalId';
export { stripWorktreeSuffix, AGENT_WORKTREE_DIRS, type WorktreeSplit } from './worktreeSuffix';
export { OVERRIDE_FILE_NAMES } from './override';
export { parseGitConfig, type GitConfigEntry } from './gitConfig';
export { parseHgrc, type HgrcEntry } from './hgrc';

const shared = new ProjectIdResolver();

/** Resolves through the process-wide cache. */
export function resolveProjectId(rawIdOrPath: string, opts?: ResolveOptions): Promise<ProjectIdResult> {
  return shared.resolve(rawIdOrPath, opts);
}

export function resolveProjectIdSync(rawIdOrPath: string, opts?: ResolveOptions): ProjectIdResult {
  return shared.resolveSync(rawIdOrPath, opts);
}

/** Drops the process-wide cache, or only what `changedPath` can affect. */
export function invalidateProjectIdCache(changedPath?: string): void {
  shared.invalidate(changedPath);
}
