/**
 * Team memory (docs/team.md): the project store shared with other machines and people through
 * a PostgreSQL server. The sync itself is the project runtime's background task
 * (src/core/team/syncTask.ts); this service connects (tests the server, makes the project's
 * schema, writes the settings to agent.yaml without the password, keeps the password in the
 * keychain, uploads the store), reports the state, syncs now, lists and settles conflicts, and
 * disconnects (the local memory stays).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { findConfigFile } from '../../../core/config/files';
import {
  clientConfig,
  newPgClient,
  clientKeyKey,
  passwordKey,
  serverLabel,
  teamSettingsOf,
  TeamPasswords,
  type TeamSettings,
} from '../../../core/team/connection';
import { openConflicts, resolveConflictRow, sharedByOf } from '../../../core/team/localState';
import { openContradictions, settleContradiction } from '../../../core/team/review';
import type { StoreRuntime } from '../runtime/storeRuntime';
import type { SharedBy } from '../../../core/memory/types';
import { ensureServerSchema, projectSchema } from '../../../core/team/serverSchema';
import type { TeamSyncTask } from '../../../core/team/syncTask';
import type { RuntimeOptions } from '../runtime/storeRuntime';
import { UserFacingError, errorMessage } from '../../../core/util/errors';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { TeamConflictInfo, TeamConnectParams, TeamOverview, TeamSyncReport } from '../../teamProtocol';

const HOST = /^[A-Za-z0-9._:-]{1,253}$/;

/** A sync failure in the words of the catalogue: the server's own errors (schema, project) pass, the network's become team_unreachable. */
function unreachable(server: string, e: unknown): Error {
  if (e instanceof UserFacingError) return e;
  return new EngineError('team_unreachable', `The team memory server at ${server} cannot be reached: ${errorMessage(e)}`);
}

/** What is wrong with connect's params, in the invalid_input form ("field: reason"), if anything. */
function invalidConnect(p: TeamConnectParams): string | undefined {
  if (typeof p?.host !== 'string' || !HOST.test(p.host)) return 'host: must be a host name or address';
  if (typeof p.user !== 'string' || !p.user) return 'user: must be the role to sign in as';
  const port = p.port ?? 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return 'port: must be a whole number from 1 to 65535';
  if (p.tls !== undefined && p.tls !== 'verify-full' && p.tls !== 'disable') return 'tls: must be verify-full or disable';
  return undefined;
}

export class TeamService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly passwords: TeamPasswords,
    private readonly reload: () => Promise<unknown>,
  ) {}

  private settings(): TeamSettings | undefined {
    return teamSettingsOf(this.ctx.config, this.ctx.project.id);
  }

  /** What the project runtime needs to run the sync (undefined: not connected). */
  runtimeOptions(onPulled: () => void): RuntimeOptions['team'] {
    const settings = this.settings();
    if (!settings) return undefined;
    return {
      settings,
      password: () => this.passwords.get(passwordKey(settings)),
      clientKey: () => (settings.certFile ? this.passwords.get(clientKeyKey(settings)) : Promise.resolve(undefined)),
      onStatus: (status) => {
        if (status.last && status.last.pulled > 0) onPulled();
        this.ctx.emit({ type: 'team.status', status: { connected: true, ...status } });
      },
      onWarning: (m) => this.ctx.warn(m),
      onProgress: (done, total) => this.ctx.emit({ type: 'team.progress', done, total }),
    };
  }

  private task(): TeamSyncTask {
    const task = this.ctx.stores.runtime('project').teamSync;
    if (task) return task;
    const reason = this.settings()
      ? 'This process cannot write the memory store, so it does not sync.'
      : 'Connect it with "agent-memory team connect" or the command "Connect to Team Memory…".';
    throw new EngineError('team_not_connected', `This project is not connected to a team memory server. ${reason}`);
  }

  status(): TeamOverview {
    const task = this.ctx.stores.runtime('project').teamSync;
    return task ? { connected: true, ...task.status() } : { connected: false };
  }

  async sync(): Promise<{ status: TeamOverview; report: TeamSyncReport }> {
    const s = this.settings();
    const report = await this.round().catch((e: unknown) => {
      throw unreachable(s ? serverLabel(s) : 'the configured address', e);
    });
    return { status: this.status(), report };
  }

  /**
   * One round on the project's sync task. A configuration reload (connect's own, or the agent.yaml
   * watcher's in VS Code) replaces the task, stopping the one a round was asked of: the round runs
   * again on its successor, which starts from what was committed.
   */
  private async round(onProgress?: (done: number, total: number) => void): Promise<TeamSyncReport> {
    for (let attempt = 1; ; attempt++) {
      const task = this.task();
      try {
        return await task.syncNow(onProgress);
      } catch (e) {
        if (!task.isStopped() || attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  private checked(p: TeamConnectParams): TeamSettings {
    const bad = invalidConnect(p);
    if (bad) throw new EngineError('invalid_input', bad);
    const port = p.port ?? 5432;
    return {
      host: p.host,
      port,
      database: p.database || p.user,
      user: p.user,
      schema: p.schema || projectSchema(this.ctx.project.id),
      tls: p.tls ?? 'verify-full',
      caFile: p.caFile ?? '',
      certFile: p.certFile ?? '',
      author: p.author ?? '',
      syncIntervalMs: this.ctx.config.team.syncInterval,
    };
  }

  /** Signs in, makes (or checks) the project's schema, and only then saves anything. */
  private async tryServer(s: TeamSettings, password: string | undefined, clientKey: string | undefined): Promise<void> {
    const client = await newPgClient(clientConfig(s, password, clientKey));
    client.on('error', () => undefined);
    try {
      await client.connect();
      await ensureServerSchema(client, s.schema, this.ctx.project.id);
    } catch (e) {
      throw unreachable(serverLabel(s), e);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async connect(
    p: TeamConnectParams,
  ): Promise<{ status: TeamOverview; report: TeamSyncReport; settingsFile: string; passwordKeptIn: string }> {
    const s = this.checked(p);
    const key = passwordKey(s);
    const password = p.password ?? (await this.passwords.get(key));
    const clientKey = s.certFile ? (p.clientKey ?? (await this.passwords.get(clientKeyKey(s)))) : undefined;
    await this.tryServer(s, password, clientKey);
    if (p.password !== undefined) await this.passwords.set(key, p.password);
    // A client certificate's private key is kept like the password: the keychain, never agent.yaml.
    if (s.certFile && p.clientKey !== undefined) await this.passwords.set(clientKeyKey(s), p.clientKey);
    const settingsFile = await this.writeSettings((doc) => {
      const t: Record<string, string | number> = { host: s.host, port: s.port, database: s.database, user: s.user, tls: s.tls };
      if (p.schema) t.schema = p.schema;
      if (s.caFile) t.caFile = s.caFile;
      if (s.certFile) t.certFile = s.certFile;
      if (s.author) t.author = s.author;
      doc.set('team', t);
    });
    await this.reload();
    // The upload's progress: the task's events (team.progress), whichever round uploads.
    const report = await this.round().catch((e: unknown) => {
      throw unreachable(serverLabel(s), e);
    });
    return { status: this.status(), report, settingsFile, passwordKeptIn: this.passwords.where() };
  }

  async disconnect(): Promise<{ disconnected: boolean; settingsFile?: string }> {
    const s = this.settings();
    if (!s) return { disconnected: false };
    const settingsFile = await this.writeSettings((doc) => doc.delete('team'));
    await this.passwords.delete(passwordKey(s));
    await this.passwords.delete(clientKeyKey(s));
    await this.reload();
    if (this.settings()) {
      throw new EngineError(
        'invalid_input',
        'team.host: still set in the VS Code settings, which win over agent.yaml; clear "Agent Memory › Team: Host" there to disconnect.',
      );
    }
    return { disconnected: true, settingsFile };
  }

  /**
   * The memories with who made their server version added (docs/team.md "Surfaces": the memory
   * views show it), while the project is connected. Project memories only: the global store is
   * never shared.
   */
  withSharedBy<T extends { id: string; scope: string; sharedBy?: SharedBy }>(items: T[]): T[] {
    const ids = items.filter((m) => m.scope === 'project').map((m) => m.id);
    if (!ids.length || !this.settings()) return items; // shown while connected: after Disconnect nothing is shared
    const by = sharedByOf(this.ctx.stores.runtime('project').store, ids);
    if (!by.size) return items;
    return items.map((m) => {
      const s = by.get(m.id);
      return s ? { ...m, sharedBy: s } : m;
    });
  }

  conflicts(): TeamConflictInfo[] {
    const rt = this.ctx.stores.runtime('project');
    const contradictions = openContradictions(rt.store).flatMap((c): TeamConflictInfo[] =>
      c.mine
        ? [
            {
              id: c.id,
              memoryId: c.memoryId,
              serverAuthor: c.author,
              local: c.mine,
              current: c.theirs,
              createdAt: c.createdAt,
              contradiction: { theirMemoryId: c.theirMemoryId, reason: c.reason },
            },
          ]
        : [],
    );
    return [...this.editConflicts(rt), ...contradictions];
  }

  private editConflicts(rt: StoreRuntime): TeamConflictInfo[] {
    return openConflicts(rt.store).map((c) => {
      const m = rt.memory.get(c.memoryId, { includeDeleted: true });
      return {
        id: c.id,
        memoryId: c.memoryId,
        serverAuthor: c.serverAuthor,
        local: c.local,
        current: m ? { title: m.title, content: m.content, deletedAt: m.deletedAt } : null,
        createdAt: c.createdAt,
      };
    });
  }

  /** Keeps the server's version, or makes the local one current again (an ordinary edit, pushed on top of the winner). */
  resolve(id: string, keep: 'server' | 'mine'): { resolved: boolean } {
    const rt = this.ctx.stores.runtime('project');
    if (openContradictions(rt.store).some((x) => x.id === id)) {
      return this.ctx.write(rt, () => {
        const r = settleContradiction(rt.store, rt.memory, id, keep === 'server' ? 'theirs' : 'mine', { now: this.ctx.now() });
        this.ctx.changed(r.status === 'deleted' ? 'deleted' : 'updated', [r.memoryId], 'project');
        return { resolved: r.status !== 'stale' };
      });
    }
    const c = openConflicts(rt.store).find((x) => x.id === id);
    if (!c) throw new EngineError('not_found', `No open team conflict with id ${id}.`);
    const iso = this.ctx.now().toISOString();
    return this.ctx.write(rt, () => {
      if (keep === 'mine') {
        const m = rt.memory.get(c.memoryId, { includeDeleted: true });
        if (m?.deletedAt && !c.local.deletedAt) rt.memory.restore(c.memoryId, { who: 'user' });
        if (!c.local.deletedAt) {
          rt.memory.update(
            c.memoryId,
            {
              title: c.local.title,
              content: c.local.content,
              tags: c.local.tags,
              importance: c.local.importance,
              who: 'user',
              why: 'kept my version of a team conflict',
            },
            { extract: false },
          );
        } else if (m && !m.deletedAt) rt.memory.delete(c.memoryId, { who: 'user', reason: 'kept my version of a team conflict' });
      }
      const resolved = rt.store.transaction((tx) => resolveConflictRow(tx, id, keep === 'mine' ? 'kept_mine' : 'kept_server', iso));
      this.ctx.changed('updated', [c.memoryId], 'project');
      return { resolved };
    });
  }

  /** Edits the project's agent.yaml (made in the workspace when there is none), keeping its comments. */
  private async writeSettings(edit: (doc: ReturnType<typeof parseDocument>) => void): Promise<string> {
    const root = this.ctx.init.workspaceRoot;
    if (!root) throw new EngineError('invalid_input', 'workspace: team memory needs a project folder to keep its settings in (agent.yaml)');
    const file = (await findConfigFile(root)) ?? path.join(root, 'agent.yaml');
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const doc = parseDocument(text);
    edit(doc);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, doc.toString());
    fs.renameSync(tmp, file);
    return file;
  }
}
