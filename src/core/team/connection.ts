/**
 * How a machine reaches its team server (docs/team.md "Connecting"): the settings from
 * agent.yaml / VS Code settings (never a password), the password from the keychain (or a file
 * only the user can read where no keychain answers, or AGENT_MEMORY_TEAM_PASSWORD), and TLS
 * that verifies the server's certificate and name unless turned off for a server on this machine.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Client, ClientConfig } from 'pg';
import type { ResolvedConfig, TeamConfig } from '../config/types';
import { osKeychain } from '../crypto/osKeychain';
import type { SecretStore } from '../webhooks/secrets';
import { UserFacingError, errorMessage } from '../util/errors';
import { projectSchema } from './serverSchema';

/** The connection settings of `team.*` (TeamConfig), with the sync interval named by its unit. */
export type TeamSettings = Omit<TeamConfig, 'syncInterval'> & { syncIntervalMs: number };

/** The team settings of a configuration, or undefined when this project is not connected (no host). */
export function teamSettingsOf(config: ResolvedConfig, projectId: string): TeamSettings | undefined {
  const t = config.team;
  if (!t.host) return undefined;
  return {
    host: t.host,
    port: t.port,
    database: t.database || t.user,
    user: t.user,
    schema: t.schema || projectSchema(projectId),
    tls: t.tls,
    caFile: t.caFile,
    certFile: t.certFile,
    author: t.author || safeUserName(),
    syncIntervalMs: t.syncInterval,
  };
}

function safeUserName(): string {
  try {
    return os.userInfo().username || 'someone';
  } catch {
    return 'someone';
  }
}

/** "user@host:port/database", as people are shown the server (never the password). */
export function serverLabel(s: Pick<TeamSettings, 'host' | 'port' | 'database' | 'user'>): string {
  return `${s.user}@${s.host}:${s.port}/${s.database}`;
}

/** The key the password is kept under in the keychain or the secrets file. */
export function passwordKey(s: Pick<TeamSettings, 'host' | 'port' | 'database' | 'user'>): string {
  return `team/${serverLabel(s)}`;
}

/** The key a client certificate's private key is kept under (beside the password). */
export function clientKeyKey(s: Pick<TeamSettings, 'host' | 'port' | 'database' | 'user'>): string {
  return `${passwordKey(s)}#client-key`;
}

function readSetting(key: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserFacingError(`${key}: ${file} cannot be read (${errorMessage(e)}).`, 'invalid_input');
  }
}

/** The client certificate and its key, when the settings name one (TLS only: a certificate is never sent in the clear). */
function clientCertificate(s: TeamSettings, clientKey: string | undefined): { cert: string; key: string } | undefined {
  if (!s.certFile) return undefined;
  if (s.tls !== 'verify-full') {
    throw new UserFacingError(
      'team.certFile: a client certificate needs team.tls: verify-full (it is never sent in the clear).',
      'invalid_input',
    );
  }
  if (!clientKey) {
    throw new UserFacingError(
      'team.certFile: the private key of the client certificate is not in the keychain; connect again with its key (agent-memory team connect --cert FILE --key FILE).',
      'invalid_input',
    );
  }
  return { cert: readSetting('team.certFile', s.certFile), key: clientKey };
}

/** node-postgres settings: TLS verified against the system's or the given authority; timeouts so a dead network never hangs a sync. */
export function clientConfig(s: TeamSettings, password: string | undefined, clientKey?: string): ClientConfig {
  let ssl: ClientConfig['ssl'] = false;
  if (s.tls === 'verify-full') {
    const ca = s.caFile ? readSetting('team.caFile', s.caFile) : undefined;
    ssl = { rejectUnauthorized: true, servername: s.host, ...(ca ? { ca } : {}), ...clientCertificate(s, clientKey) };
  } else clientCertificate(s, clientKey);
  return {
    host: s.host,
    port: s.port,
    database: s.database,
    user: s.user,
    ...(password !== undefined ? { password } : {}),
    ssl,
    connectionTimeoutMillis: 10_000,
    query_timeout: 60_000,
    statement_timeout: 60_000,
    keepAlive: true,
    application_name: 'agent-memory',
  };
}

/**
 * Where team passwords are kept: the OS keychain when one answers, else `fallback` (a file only
 * the user can read). AGENT_MEMORY_TEAM_PASSWORD, when set, is used and nothing is stored.
 */
export class TeamPasswords {
  constructor(
    private readonly fallback: SecretStore,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  private keychain(): { get(k: string): string | null; set(k: string, v: string): void } | undefined {
    const k = osKeychain();
    if ('error' in k) return undefined;
    try {
      k.keychain.get('agent-memory-probe');
      return k.keychain;
    } catch {
      return undefined;
    }
  }

  /** Where a stored password is (for messages). */
  where(): string {
    if (this.env.AGENT_MEMORY_TEAM_PASSWORD !== undefined) return 'the AGENT_MEMORY_TEAM_PASSWORD environment variable';
    return this.keychain() ? 'the keychain' : this.fallback.where;
  }

  async get(key: string): Promise<string | undefined> {
    const fromEnv = this.env.AGENT_MEMORY_TEAM_PASSWORD;
    if (fromEnv !== undefined) return fromEnv;
    const kc = this.keychain();
    if (kc) return kc.get(key) || undefined; // '' is a forgotten password (a keychain entry cannot always be removed)
    return this.fallback.get(key);
  }

  async set(key: string, password: string): Promise<void> {
    if (this.env.AGENT_MEMORY_TEAM_PASSWORD !== undefined) return;
    const kc = this.keychain();
    if (kc) kc.set(key, password);
    else await this.fallback.set(key, password);
  }

  async delete(key: string): Promise<void> {
    const kc = this.keychain();
    if (kc) kc.set(key, '');
    await this.fallback.delete(key);
  }
}

/**
 * A PostgreSQL client, the driver loaded on first use: loading `pg` costs about 200 ms, which every
 * engine start (a Claude Code hook's included) paid though most never talk to a team server.
 */
export async function newPgClient(config: ClientConfig): Promise<Client> {
  const { default: pg } = await import('pg');
  return new pg.Client(config);
}
