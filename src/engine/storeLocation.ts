/**
 * Where the stores live (ARCHITECTURE.md "One owner, many clients"): one user-level folder
 * shared by every VS Code window, clone, worktree, CLI and MCP server of the same OS user.
 *
 *   <home>/<storeFolderName(projectId)>/   one store per normalized project id
 *   <home>/global/                         the global store (scope = global)
 *
 * <home> is the `agentMemory.storeHome` setting when set, else the AGENT_MEMORY_HOME
 * environment variable, else ~/.agent-memory. Keyed by the project id, not by window, so two
 * clones with the same origin open the same store.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const HOME_ENV = 'AGENT_MEMORY_HOME';
export const GLOBAL_FOLDER = 'global';

/** A short, file-system-safe folder name for a project id (readable prefix + hash). */
export function storeFolderName(projectId: string): string {
  const readable =
    projectId
      .replace(/[^a-zA-Z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 60) || 'project';
  return `${readable}-${createHash('sha256').update(projectId).digest('hex').slice(0, 12)}`;
}

/** The store home: the setting, else AGENT_MEMORY_HOME, else ~/.agent-memory (a leading ~ is expanded). */
export function resolveStoreHome(setting?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = [setting, env[HOME_ENV]].map((v) => v?.trim()).find((v) => !!v);
  if (!chosen) return path.join(os.homedir(), '.agent-memory');
  const expanded = chosen === '~' || chosen.startsWith('~/') ? path.join(os.homedir(), chosen.slice(1)) : chosen;
  return path.resolve(expanded);
}

export interface StoreDirs {
  project: string;
  global: string;
}

/** The project and global store folders under a home. */
export function storeDirsIn(home: string, projectId: string): StoreDirs {
  return { project: path.join(home, storeFolderName(projectId)), global: path.join(home, GLOBAL_FOLDER) };
}

/** The per-window folders of earlier versions (VS Code workspace and global storage). */
export function legacyStoreDirs(
  storageDir: string | undefined,
  globalStorageDir: string | undefined,
  projectId: string,
): Partial<StoreDirs> {
  return {
    ...(storageDir ? { project: path.join(storageDir, 'projects', storeFolderName(projectId)) } : {}),
    ...(globalStorageDir ? { global: path.join(globalStorageDir, GLOBAL_FOLDER) } : {}),
  };
}

/** Creates the home readable by its OS user only (0700): memories are private. An existing folder is left as it is. */
export function ensurePrivateHome(home: string): void {
  if (!fs.existsSync(home)) fs.mkdirSync(home, { recursive: true, mode: 0o700 });
}
