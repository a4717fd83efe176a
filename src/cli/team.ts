/**
 * `agent-memory team connect|status|sync|conflicts|resolve|disconnect` (docs/team.md): this
 * project's memory shared through a PostgreSQL server. The password is read from stdin
 * (--password-stdin) or AGENT_MEMORY_TEAM_PASSWORD, never from the command line (it would stay
 * in the shell's history and the process list), and kept in the keychain, never in agent.yaml.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../core/util/errors';
import type { EngineClient } from '../engine/client/engineClient';
import type { TeamConflictInfo, TeamOverview, TeamSyncReport } from '../engine/teamProtocol';
import { plural } from '../core/text/plural';
import { UsageError, type CliArgs } from './args';
import type { CommandIo, CommandOutput } from './commands';

export const TEAM_ACTIONS = ['status', 'connect', 'sync', 'conflicts', 'resolve', 'disconnect'] as const;
type TeamAction = (typeof TEAM_ACTIONS)[number];

const STATE_WORDS: Record<string, string> = {
  connecting: 'connecting (the first upload has not finished)',
  synced: 'synced',
  waiting: 'changes waiting to be pushed',
  offline: 'offline: changes are kept here and pushed when the server is back',
  conflict: 'a conflict to resolve',
};

export function statusText(s: TeamOverview): string {
  if (!s.connected) return 'not connected to team memory (agent-memory team connect --server HOST --user NAME)';
  return [
    `team memory: ${STATE_WORDS[s.state] ?? s.state}`,
    `server: ${s.server}, schema ${s.schema}`,
    `you are ${s.author} on ${s.machine}`,
    `${plural(s.waiting, 'memory', 'memories')} waiting to be pushed, ${plural(s.conflicts, 'conflict')} to resolve`,
    `last sync: ${s.lastSyncAt ?? 'never'}`,
    ...(s.lastError ? [`last attempt failed: ${s.lastError}`] : []),
  ].join('\n');
}

export function reportText(r: TeamSyncReport): string {
  const parts = [`pushed ${plural(r.pushed, 'change')}`, `pulled ${plural(r.pulled, 'change')}`];
  if (r.conflicts) parts.push(`${plural(r.conflicts, 'new conflict')} (agent-memory team conflicts)`);
  if (r.duplicates) parts.push(`${plural(r.duplicates, 'duplicate')} merged with the team's copy`);
  if (r.heldBack.length) parts.push(`${plural(r.heldBack.length, 'memory', 'memories')} kept here because it holds a secret`);
  return parts.join(', ');
}

function conflictText(c: TeamConflictInfo): string {
  if (c.contradiction) {
    return [
      `${c.serverAuthor ?? 'someone'}'s memory ${c.contradiction.theirMemoryId ?? ''} says otherwise than yours, ${c.memoryId} (${c.createdAt}): ${c.contradiction.reason}`,
      `  theirs (by ${c.serverAuthor ?? 'someone'}): ${c.current?.content ?? '(gone)'}`,
      `  yours: ${c.local.content}`,
      `  agent-memory team resolve ${c.id} --keep server   (retire yours: restorable)`,
      `  agent-memory team resolve ${c.id} --keep mine     (keep both)`,
    ].join('\n');
  }
  const theirs = c.current ? (c.current.deletedAt ? '(deleted)' : c.current.content) : '(gone)';
  const mine = c.local.deletedAt ? '(deleted)' : c.local.content;
  return [
    `conflict ${c.id} on memory ${c.memoryId} (${c.createdAt})`,
    `  kept (by ${c.serverAuthor ?? 'someone'}): ${theirs}`,
    `  yours, not taken: ${mine}`,
    `  agent-memory team resolve ${c.id} --keep server|mine`,
  ].join('\n');
}

async function readPassword(a: CliArgs, io: CommandIo): Promise<string | undefined> {
  if (!a.passwordStdin) return process.env.AGENT_MEMORY_TEAM_PASSWORD;
  let text = '';
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) text += chunk.toString();
  const pw = text.replace(/\r?\n$/, '');
  if (!pw) throw new UsageError('team connect: --password-stdin was given but stdin was empty', 'team');
  return pw;
}

function serverParts(a: CliArgs): { host: string; port?: number } {
  if (!a.server) throw new UsageError('team connect: give the server with --server HOST[:PORT]', 'team');
  const m = /^(.+?)(?::(\d{1,5}))?$/.exec(a.server)!;
  return { host: m[1]!, ...(m[2] ? { port: Number(m[2]) } : {}) };
}

/** The client certificate's private key, read once here: the engine keeps it in the keychain. */
function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`team connect: --cert-key ${file} cannot be read (${errorMessage(e)})`, 'team');
  }
}

type Action = (engine: EngineClient, a: CliArgs, io: CommandIo) => Promise<CommandOutput>;

const ACTIONS: Record<TeamAction, Action> = {
  status: async (engine) => {
    const s = await engine.request('team.status', {});
    return { json: s, text: statusText(s) };
  },
  connect: async (engine, a, io) => {
    if (!a.user) throw new UsageError('team connect: give the role to sign in as with --user NAME', 'team');
    const password = await readPassword(a, io);
    const sub = engine.onEvent((e) => {
      if (e.type === 'team.progress' && !a.json) io.stderr.write(`uploading: ${e.done} of ${plural(e.total, 'memory', 'memories')}\n`);
    });
    try {
      const r = await engine.request('team.connect', {
        ...serverParts(a),
        user: a.user,
        ...(a.database ? { database: a.database } : {}),
        ...(a.teamSchema ? { schema: a.teamSchema } : {}),
        ...(a.tls ? { tls: a.tls } : {}),
        ...(a.caFile ? { caFile: a.caFile } : {}),
        ...(a.certFile ? { certFile: path.resolve(a.certFile) } : {}),
        ...(a.certKeyFile ? { clientKey: readKeyFile(a.certKeyFile) } : {}),
        ...(a.author ? { author: a.author } : {}),
        ...(password !== undefined ? { password } : {}),
      });
      const text = [
        `connected: ${reportText(r.report)}`,
        `settings written to ${r.settingsFile} (no password); the password is kept in ${r.passwordKeptIn}`,
        statusText(r.status),
      ].join('\n');
      return { json: r, text };
    } finally {
      sub.dispose();
    }
  },
  sync: async (engine) => {
    const r = await engine.request('team.sync', {});
    return { json: r, text: `${reportText(r.report)}\n${statusText(r.status)}` };
  },
  conflicts: async (engine) => {
    const list = await engine.request('team.conflicts', {});
    return { json: list, text: list.length ? list.map(conflictText).join('\n\n') : 'no conflicts to resolve' };
  },
  resolve: async (engine, a) => {
    const id = a.positionals[1];
    if (!id) throw new UsageError("team resolve: give the conflict's id (agent-memory team conflicts lists them)", 'team');
    if (!a.keep) throw new UsageError('team resolve: say which version to keep with --keep server or --keep mine', 'team');
    const r = await engine.request('team.resolve', { id, keep: a.keep });
    return {
      json: r,
      text: a.keep === 'mine' ? 'your version is current again; it is pushed with the next sync' : "the team's version is kept",
    };
  },
  disconnect: async (engine) => {
    const r = await engine.request('team.disconnect', {});
    return {
      json: r,
      text: r.disconnected
        ? `disconnected: this project's memory stays here as it is; the team settings left ${r.settingsFile}`
        : 'this project was not connected to team memory',
    };
  },
};

export async function teamCommand(engine: EngineClient, a: CliArgs, io: CommandIo): Promise<CommandOutput> {
  const word = a.positionals[0] ?? 'status';
  if (!(TEAM_ACTIONS as readonly string[]).includes(word)) {
    throw new UsageError(`team: unknown action "${word}" (one of ${TEAM_ACTIONS.join(', ')})`, 'team');
  }
  return ACTIONS[word as TeamAction](engine, a, io);
}
