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
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePrivateFolder } from './socket/privateDir';

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

const OWN_HOME =
  'choose a store home of your own (AGENT_MEMORY_HOME, --home or the agentMemory.storeHome setting): a store home is never shared between users.';

/**
 * Creates the home readable by its OS user only (0700): memories are private. An existing home
 * must be the user's own and writable by nobody else (it may be a symbolic link to such a
 * folder): a store home cannot be shared between users, since another user who can write it
 * could replace the store's files, its lock or its owner's record (`not_private` otherwise).
 */
export function ensurePrivateHome(home: string): void {
  ensurePrivateFolder(home, { what: 'The store home', otherwise: OWN_HOME, followLink: true });
}

/**
 * Creates each store folder 0700 when missing. An existing one must be the user's own; inside
 * the private home it is set to 0700 when older versions left it open (0755, or 0775 under a
 * umask of 002), and it may be a symbolic link the user made to keep a store elsewhere.
 */
export function ensurePrivateStoreDirs(dirs: StoreDirs): void {
  for (const dir of [dirs.project, dirs.global]) {
    ensurePrivateFolder(dir, { what: 'The store folder', otherwise: OWN_HOME, followLink: true, tighten: true });
  }
}

/**
 * Where webhook signing secrets are kept when no keychain holds them (docs/changes.md "The
 * signing secret"): `<home>/secrets/webhooks.json`, beside the store folders and outside all
 * of them, so no export, snapshot or store copy carries a secret.
 */
/** Team memory passwords where no keychain answers (docs/team.md): beside the webhook secrets, private to the user. */
export function teamSecretsFile(opts: { home?: string }, projectStoreDir: string): string {
  return path.join(path.dirname(webhookSecretsFile(opts, projectStoreDir)), 'team.json');
}

export function webhookSecretsFile(opts: { home?: string }, projectStoreDir: string): string {
  const base = opts.home ?? path.dirname(path.dirname(projectStoreDir));
  return path.join(base, 'secrets', 'webhooks.json');
}
