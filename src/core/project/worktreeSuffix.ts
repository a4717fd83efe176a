/**
 * Agent worktree folders: coding agents check out parallel worktrees inside the project,
 * e.g. `/repo/.claude/worktrees/feat-x`. Such a path belongs to the project at `/repo`.
 * The list is explicit: a generic "any dot-folder/worktrees" rule would also match tool
 * caches under the home directory (`~/.cache/worktrees/x`) and collapse them into `~`.
 */
export const AGENT_WORKTREE_DIRS = [
  '.worktrees',
  '.claude/worktrees',
  '.cursor/worktrees',
  '.codex/worktrees',
  '.gemini/worktrees',
  '.windsurf/worktrees',
  '.kiro/worktrees',
  '.roo/worktrees',
  '.cline/worktrees',
  '.continue/worktrees',
  '.aider/worktrees',
  '.opencode/worktrees',
  '.agents/worktrees',
  '.agent/worktrees',
] as const;

const SEP = String.raw`[\\/]`;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The leftmost agent folder followed by a worktree name, up to the end of the path.
const SUFFIX = new RegExp(
  `${SEP}(?:${AGENT_WORKTREE_DIRS.map((d) => d.split('/').map(escape).join(SEP)).join('|')})${SEP}[^\\\\/]+(?:${SEP}.*)?$`,
);

export interface WorktreeSplit {
  /** The project path the worktree belongs to. */
  root: string;
  /** What was cut off, e.g. `/.claude/worktrees/feat-x/src`. */
  suffix: string;
}

/** Splits an absolute path at its (leftmost) agent worktree folder, or undefined if it has none. */
export function stripWorktreeSuffix(absPath: string): WorktreeSplit | undefined {
  const m = SUFFIX.exec(absPath);
  if (!m) return undefined;
  const root = absPath.slice(0, m.index);
  // `/.worktrees/x` sits directly under the filesystem root.
  return { root: root === '' || /^[A-Za-z]:$/.test(root) ? root + absPath[m.index] : root, suffix: m[0] };
}
