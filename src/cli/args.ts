/**
 * Command line of `agent-memory`: `agent-memory <command> [arguments] [options]`. Parsing only:
 * a mistake is a UsageError (exit code 2) naming what is wrong, never a guess.
 */
import { parseArgs } from 'node:util';
import { parseLifetimeSeconds } from '../core/lifecycle/lifetimeText';

export class UsageError extends Error {}

export const COMMANDS = [
  'add',
  'search',
  'get',
  'list',
  'update',
  'delete',
  'restore',
  'removed',
  'history',
  'export',
  'import',
  'stats',
  'mcp',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface CliArgs {
  command: CommandName;
  positionals: string[];
  workspace: string;
  home?: string;
  json: boolean;
  verbose: boolean;
  scope?: 'project' | 'global';
  title?: string;
  type?: string;
  tags?: string[];
  importance?: number;
  limit?: number;
  offset?: number;
  content?: string;
  reason?: string;
  format?: 'jsonl' | 'json';
  http?: number;
  /** add: a lifetime in seconds (--ttl 3600, 12h, 7d). */
  ttl?: number;
  /** add: an automatic capture (short-term by default, docs/lifecycle.md). */
  capture?: boolean;
  /** removed: only expired / only deleted memories. */
  expired?: boolean;
  deleted?: boolean;
  tokenFile?: string;
}

export const USAGE = `Usage: agent-memory <command> [arguments] [options]

Commands:
  add <text…>            store a memory, kept until deleted (--title, --type, --tags a,b, --importance 0-1,
                         --ttl 12h|7d|<seconds> to expire, --capture for an agent's automatic capture: short-term)
  search <query…>        hybrid search (--limit, --type, --tags)
  get <id>               one memory, in full
  list                   newest first (--limit, --offset, --type, --tags)
  update <id>            change a memory (--content, --title, --type, --tags, --importance)
  delete <id>            soft-delete (--reason)
  removed                recently deleted and expired memories, restorable (--expired, --deleted, --limit)
  restore <id>           bring back a deleted or expired memory
  history <id>           every change of a memory
  export <file>          write memories to a JSONL file (--format json for the older format)
  import <file>          read an export (JSONL, JSON, or an array of {content,…})
  stats                  counts and store figures
  mcp                    serve the Model Context Protocol on stdio; --http <port>: Streamable HTTP on
                         127.0.0.1 only, bearer token required (--token-file <file>, else a new one
                         is printed and written next to the store; port 0: any free port)

Options:
  --workspace <folder>   project folder (default: the current directory)
  --scope project|global which store (default: project; search and list: both)
  --home <folder>        store home (default: AGENT_MEMORY_HOME, else ~/.agent-memory)
  --json                 print exactly one JSON object on stdout
  --verbose              log the engine's connection to stderr
Exit codes: 0 ok, 1 error (one line on stderr), 2 usage.`;

const OPTIONS = {
  workspace: { type: 'string' },
  home: { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  scope: { type: 'string' },
  title: { type: 'string' },
  type: { type: 'string' },
  tags: { type: 'string' },
  importance: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  content: { type: 'string' },
  reason: { type: 'string' },
  format: { type: 'string' },
  http: { type: 'string' },
  ttl: { type: 'string' },
  capture: { type: 'boolean' },
  expired: { type: 'boolean' },
  deleted: { type: 'boolean' },
  host: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCli(argv: string[], cwd: string): CliArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help || positionals.length === 0) return 'help';
  const [command, ...rest] = positionals as [string, ...string[]];
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command "${command}" (one of: ${COMMANDS.join(', ')})`);
  return {
    command: command as CommandName,
    positionals: rest,
    workspace: v.workspace ?? cwd,
    ...(v.home ? { home: v.home } : {}),
    json: !!v.json,
    verbose: !!v.verbose,
    ...optional('scope', v.scope, (s) => oneOf(s, ['project', 'global'] as const, '--scope')),
    ...optional('title', v.title, (s) => s),
    ...optional('type', v.type, (s) => s),
    ...optional('tags', v.tags, (s) =>
      s
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
    ...optional('importance', v.importance, (s) => num(s, '--importance', 0, 1, false)),
    ...optional('limit', v.limit, (s) => num(s, '--limit', 1, 1000, true)),
    ...optional('offset', v.offset, (s) => num(s, '--offset', 0, Number.MAX_SAFE_INTEGER, true)),
    ...optional('content', v.content, (s) => s),
    ...optional('reason', v.reason, (s) => s),
    ...optional('format', v.format, (s) => oneOf(s, ['jsonl', 'json'] as const, '--format')),
    ...optional('http', v.http, (s) => num(s, '--http', 0, 65535, true)),
    ...optional('tokenFile', v['token-file'], (s) => s),
    ...optional('ttl', v.ttl, duration),
    ...(v.capture ? { capture: true } : {}),
    ...(v.expired ? { expired: true } : {}),
    ...(v.deleted ? { deleted: true } : {}),
    ...localHostOnly(v.host),
  };
}

/** --host exists only to say no: the MCP HTTP server is never reachable from another machine. */
function localHostOnly(host: string | undefined): Record<string, never> {
  if (host !== undefined && host !== '127.0.0.1' && host !== 'localhost') {
    throw new UsageError(`--host: the MCP HTTP server listens on 127.0.0.1 only, got "${host}"`);
  }
  return {};
}

/** The n-th positional, or a usage error naming it. */
export function need(args: CliArgs, what: string, joinRest = false): string {
  const value = joinRest ? args.positionals.join(' ') : args.positionals[0];
  if (!value || !value.trim()) throw new UsageError(`${args.command}: missing <${what}>`);
  return value;
}

function optional<K extends string, T>(key: K, raw: string | undefined, convert: (s: string) => T): Partial<Record<K, T>> {
  return raw === undefined ? {} : ({ [key]: convert(raw) } as Record<K, T>);
}

function oneOf<T extends string>(s: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(s)) throw new UsageError(`${name}: must be one of ${allowed.join(', ')}, got "${s}"`);
  return s as T;
}

function num(s: string, name: string, min: number, max: number, whole: boolean): number {
  const n = Number(s);
  if (!s.trim() || !Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n))) {
    throw new UsageError(`${name}: must be a ${whole ? 'whole ' : ''}number from ${min} to ${max}, got "${s}"`);
  }
  return n;
}

/** --ttl: a lifetime as the memory document writes it (parseLifetimeSeconds): 3600, 90m, 12h, 7d, 2w, "7 days". */
function duration(s: string): number {
  const n = parseLifetimeSeconds(s);
  if (typeof n !== 'number') throw new UsageError(`--ttl: must be a duration like 3600, 90m, 12h or 7d (at most 100 years), got "${s}"`);
  return n;
}
