/**
 * Command line of `agent-memory`: `agent-memory <command> [arguments] [options]` (spec.ts lists
 * the commands and their options). Parsing only: a mistake is a UsageError (exit code 2) saying
 * what was given and, when one is close, what was meant — never a guess acted upon.
 */
import { parseArgs } from 'node:util';
import { COMMANDS, COMMAND_SPECS, OPTIONS, optionsOf, type CommandName, type OptionName } from './spec';
import { closest } from './closest';
import { parseLifetimeSeconds } from '../core/lifecycle/lifetimeText';
import { NOTIFICATION_POLICIES } from '../core/schedules/types';

export { COMMANDS, type CommandName } from './spec';

export class UsageError extends Error {
  /** The command whose usage line follows the message (none: the main usage). */
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

export interface CliArgs {
  command: Exclude<CommandName, 'help'>;
  positionals: string[];
  workspace: string;
  /** --workspace was given (else the current folder). */
  workspaceGiven: boolean;
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
  /**
   * add: an automatic capture, not a person's explicit save (`--automatic`, or its older name
   * `--capture`): short-term by default (docs/lifecycle.md) and merged into a very similar
   * memory (docs/consolidation.md).
   */
  automatic?: boolean;
  /** removed: only expired / only deleted memories. */
  expired?: boolean;
  deleted?: boolean;
  /** scan-secrets: redact what is found. */
  redact?: boolean;
  tokenFile?: string;
  /** events: the cursor to start after; --follow keeps printing changes. */
  since?: number;
  follow?: boolean;
  /** webhooks deliveries: only failed ones; webhooks secret: a new one. */
  failed?: boolean;
  rotate?: boolean;
  /** schedule: when it runs, the zone, a name, the notification policy. */
  when?: string;
  timezone?: string;
  name?: string;
  notify?: 'always' | 'on_failure' | 'never';
  /** session, scratchpad, note: who logs; the session to search or store in; a note's source. */
  agent?: string;
  session?: string;
  source?: string;
  /** scratchpad --clear; session forget --yes; session summary --now. */
  clear?: boolean;
  yes?: boolean;
  /** import-from: take back the last import. */
  undo?: boolean;
  /** agents-md: write the section into AGENTS.md. */
  write?: boolean;
  now?: boolean;
  /** encryption: keep the key in a 0600 file where no keychain answers. */
  keyFile?: boolean;
  /** team connect: the server and how to sign in (the password only on stdin); team resolve: the version kept. */
  server?: string;
  database?: string;
  user?: string;
  teamSchema?: string;
  tls?: 'verify-full' | 'disable';
  caFile?: string;
  certFile?: string;
  certKeyFile?: string;
  author?: string;
  passwordStdin?: boolean;
  keep?: 'server' | 'mine';
}

export type Parsed = { kind: 'run'; args: CliArgs } | { kind: 'help'; command?: CommandName } | { kind: 'version' };

type ParseOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

const PARSE_OPTIONS: ParseOptions = Object.fromEntries(
  Object.entries(OPTIONS).map(([name, o]) => [
    name,
    { type: 'value' in o ? 'string' : 'boolean', ...('short' in o ? { short: o.short } : {}) } as const,
  ]),
);

const isCommand = (s: string | undefined): s is CommandName => (COMMANDS as readonly string[]).includes(s ?? '');

function unknownCommand(word: string): UsageError {
  const near = closest(word, COMMANDS);
  return new UsageError(`unknown command "${word}".${near ? ` Did you mean "${near}"?` : ''}`);
}

export function parseCli(argv: string[], cwd: string): Parsed {
  if (argv.length === 0) throw new UsageError('');
  // A first, lenient pass finds the command (an unknown option must not hide it).
  const loose = parseArgs({ args: argv, options: PARSE_OPTIONS, allowPositionals: true, strict: false });
  const word = loose.positionals[0];
  if (loose.values.version) return { kind: 'version' };
  if (word === undefined) {
    if (loose.values.help) return { kind: 'help' };
    throw new UsageError('give a command.');
  }
  if (!isCommand(word)) throw unknownCommand(word);
  if (word === 'help') {
    const topic = loose.positionals[1];
    if (topic !== undefined && !isCommand(topic)) throw unknownCommand(topic);
    return { kind: 'help', ...(topic ? { command: topic } : {}) };
  }
  if (loose.values.help) return { kind: 'help', command: word };
  const { values, positionals } = strictParse(argv, word);
  try {
    return { kind: 'run', args: toArgs(word, values, positionals.slice(1), cwd) };
  } catch (e) {
    // A bad value: the reminder after the message is this command's usage.
    throw e instanceof UsageError && !e.command ? new UsageError(e.message, word) : e;
  }
}

type Values = Record<string, string | boolean | undefined>;

/** The real parse: node's errors turned into sentences, options checked against the command's own. */
function strictParse(argv: string[], command: Exclude<CommandName, 'help'>): { values: Values; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: PARSE_OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw new UsageError(parseErrorText(e as Error & { code?: string }, command), command);
  }
  const allowed = optionsOf(command);
  for (const t of parsed.tokens) {
    if (t.kind !== 'option' || allowed.includes(t.name as OptionName)) continue;
    const owners = COMMANDS.filter((c) => COMMAND_SPECS[c].options.includes(t.name as OptionName));
    const goes = owners.length ? ` (it goes with ${owners.join(', ')})` : '';
    throw new UsageError(`${command}: --${t.name} is not an option of ${command}${goes}.`, command);
  }
  return { values: parsed.values as Values, positionals: parsed.positionals };
}

/** Node's parseArgs error codes (node:util), not codes of our error catalogue. */
const NODE_UNKNOWN_OPTION = 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
const NODE_BAD_OPTION_VALUE = 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE';

function parseErrorText(e: Error & { code?: string }, command: CommandName): string {
  const given = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
  if (e.code === NODE_UNKNOWN_OPTION) {
    const names = optionsOf(command).map((n) => `--${n}`);
    const near = given.startsWith('--') ? closest(given, names) : undefined;
    return `${command}: unknown option ${given}. ${near ? `Did you mean ${near}?` : `Run "agent-memory help ${command}" for its options.`}`;
  }
  if (e.code === NODE_BAD_OPTION_VALUE) {
    const name = given.replace(/^-+/, '');
    const takesValue = PARSE_OPTIONS[name]?.type === 'string';
    return takesValue ? `${command}: ${given} needs a value.` : `${command}: ${given} takes no value.`;
  }
  return `${command}: ${e.message}`;
}

function toArgs(command: Exclude<CommandName, 'help'>, v: Values, rest: string[], cwd: string): CliArgs {
  const s = (k: string) => v[k] as string | undefined;
  return {
    command,
    positionals: rest,
    workspace: s('workspace') ?? cwd,
    workspaceGiven: s('workspace') !== undefined,
    ...(s('home') ? { home: s('home') } : {}),
    json: !!v.json,
    verbose: !!v.verbose,
    ...optional('scope', s('scope'), (x) => oneOf(x, ['project', 'global'] as const, '--scope')),
    ...optional('title', s('title'), (x) => x),
    ...optional('type', s('type'), (x) => x),
    ...optional('tags', s('tags'), (x) =>
      x
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
    ...optional('importance', s('importance'), (x) => num(x, '--importance', 0, 1, false)),
    ...optional('limit', s('limit'), (x) => num(x, '--limit', 1, 1000, true)),
    ...optional('offset', s('offset'), (x) => num(x, '--offset', 0, Number.MAX_SAFE_INTEGER, true)),
    ...optional('content', s('content'), (x) => x),
    ...optional('reason', s('reason'), (x) => x),
    ...optional('format', s('format'), (x) => oneOf(x, ['jsonl', 'json'] as const, '--format')),
    ...optional('http', s('http'), (x) => num(x, '--http', 0, 65535, true)),
    ...optional('tokenFile', s('token-file'), (x) => x),
    ...optional('when', s('when'), (x) => x),
    ...optional('timezone', s('timezone'), (x) => x),
    ...optional('name', s('name'), (x) => x),
    ...optional('notify', s('notify'), (x) => oneOf(x, NOTIFICATION_POLICIES, '--notify')),
    ...optional('ttl', s('ttl'), duration),
    ...(v.automatic || v.capture ? { automatic: true } : {}),
    ...optional('agent', s('agent'), (x) => x),
    ...optional('session', s('session'), (x) => x),
    ...optional('source', s('source'), (x) => x),
    ...flags(v),
    ...optional('since', s('since'), (x) => num(x, '--since', 0, Number.MAX_SAFE_INTEGER, true)),
    ...(v['key-file'] ? { keyFile: true } : {}),
    ...teamArgs(v),
    ...localHostOnly(s('host')),
  };
}

const FLAGS = ['clear', 'yes', 'undo', 'write', 'now', 'expired', 'deleted', 'follow', 'failed', 'rotate', 'redact'] as const;

/** The flags given, each as `true` (absent when not given). */
function flags(v: Values): Partial<Record<(typeof FLAGS)[number], true>> {
  return Object.fromEntries(FLAGS.filter((f) => v[f]).map((f) => [f, true]));
}

function teamArgs(v: Values): Partial<CliArgs> {
  const s = (k: string) => v[k] as string | undefined;
  return {
    ...optional('server', s('server'), (x) => x),
    ...optional('database', s('database'), (x) => x),
    ...optional('user', s('user'), (x) => x),
    ...optional('teamSchema', s('schema'), (x) => x),
    ...optional('tls', s('tls'), (x) => oneOf(x, ['verify-full', 'disable'] as const, '--tls')),
    ...optional('caFile', s('ca-file'), (x) => x),
    ...optional('certFile', s('cert'), (x) => x),
    ...optional('certKeyFile', s('cert-key'), (x) => x),
    ...optional('author', s('author'), (x) => x),
    ...optional('keep', s('keep'), (x) => oneOf(x, ['server', 'mine'] as const, '--keep')),
    ...(v['password-stdin'] ? { passwordStdin: true } : {}),
  };
}

/** --host exists only to say no: the MCP HTTP server is never reachable from another machine. */
function localHostOnly(host: string | undefined): Record<string, never> {
  if (host !== undefined && host !== '127.0.0.1' && host !== 'localhost') {
    throw new UsageError(`--host: the MCP HTTP server listens on 127.0.0.1 only, got "${host}"`, 'mcp');
  }
  return {};
}

/** The n-th positional, or a usage error naming it. */
export function need(args: CliArgs, what: string, joinRest = false): string {
  const value = joinRest ? args.positionals.join(' ') : args.positionals[0];
  if (!value || !value.trim()) throw new UsageError(`${args.command}: missing <${what}>`, args.command);
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
