/** Public types of the project id resolver (docs/project-id.md). */

/**
 * How an id was obtained:
 * - `override`: `name:` of an `.agent-memory.yml` / `.contextify.yml` file;
 * - `git-remote` / `hg-remote`: canonicalized remote URL (or absolute path of a local remote);
 * - `canonical`: the input was not a filesystem path (already canonical, a remote URL, or an opaque id);
 * - `path`: fallback, a normalized absolute path.
 */
export type ProjectIdKind = 'override' | 'git-remote' | 'hg-remote' | 'canonical' | 'path';

export interface ProjectIdResult {
  readonly id: string;
  readonly kind: ProjectIdKind;
  /** Directory the id comes from: where the override file or VCS marker sits; the path itself for `path`. */
  readonly root?: string;
  /** One line on how the id was derived, or why the resolver fell back to a path. */
  readonly detail?: string;
  /** Problems met on the way (malformed override file, unreadable config, ...). Absent when none. */
  readonly warnings?: readonly string[];
}

/** Per-call options. */
export interface ResolveOptions {
  /** Base for relative paths (`.`, `./x`, `../x`). Default: `process.cwd()`. */
  cwd?: string;
  /** Expansion of `~`. Default: `os.homedir()`. */
  homeDir?: string;
}
