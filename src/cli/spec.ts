/**
 * Every command of `agent-memory` and every option, once: what `--help`, `help <command>` and
 * the parser (args.ts) read. A command accepts its own options and the common ones, nothing else.
 */
import { MEMORY_TYPES } from '../core/memory/types';

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
  'import-from',
  'agents-md',
  'stats',
  'events',
  'webhooks',
  'scan-secrets',
  'schedule',
  'session',
  'scratchpad',
  'note',
  'hook',
  'encryption',
  'team',
  'mcp',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface OptionSpec {
  /** The value's placeholder; absent for a flag. */
  value?: string;
  short?: string;
  help: string;
}

export const OPTIONS = {
  workspace: { value: '<folder>', help: 'the project folder (default: the current folder)' },
  home: { value: '<folder>', help: 'the store home (default: AGENT_MEMORY_HOME, else ~/.agent-memory)' },
  json: { help: 'print exactly one JSON object on stdout' },
  verbose: { help: "log the engine's connection to stderr" },
  help: { short: 'h', help: 'show this help' },
  version: { short: 'V', help: 'print the version' },
  scope: { value: 'project|global', help: 'only this store (default: both)' },
  title: { value: '<text>', help: 'a title (default: none; people see the first words)' },
  type: { value: '<type>', help: `one of ${MEMORY_TYPES.join(', ')}` },
  tags: { value: '<a,b>', help: 'tags, separated by commas' },
  importance: { value: '<0-1>', help: 'importance from 0 to 1 (default 0.5)' },
  ttl: { value: '<duration>', help: 'expire after 3600 (seconds), 90m, 12h or 7d (default: kept until deleted)' },
  automatic: {
    help: "an agent's automatic capture, not a person's save: short-term unless --ttl says otherwise, and merged into a very similar memory",
  },
  capture: { help: 'the older name of --automatic' },
  limit: { value: '<n>', help: 'at most n results (1-1000)' },
  offset: { value: '<n>', help: 'skip the first n' },
  content: { value: '<text|->', help: 'the new text (- reads it from stdin)' },
  reason: { value: '<text>', help: 'why, kept in the history' },
  format: { value: 'jsonl|json', help: 'jsonl (default) or the older JSON file (default for a .json name)' },
  expired: { help: 'only expired memories' },
  deleted: { help: 'only deleted memories' },
  http: { value: '<port>', help: 'serve Streamable HTTP on 127.0.0.1:<port> instead of stdio (0: any free port)' },
  host: { value: '127.0.0.1', help: 'accepted only as 127.0.0.1 or localhost: the server is never reachable from elsewhere' },
  since: { value: '<cursor>', help: 'only the changes after this cursor (the number before each change; default: the oldest kept)' },
  follow: { help: 'keep printing changes as they come, until Ctrl+C' },
  failed: { help: 'only failed deliveries (retrying or dead)' },
  rotate: { help: 'replace the signing secret with a new one (the receiver needs the new one)' },
  redact: { help: 'replace every secret found with [redacted: <kind>], history and the store files included' },
  agent: { value: '<name>', help: 'who is logging (default: agent-memory cli)' },
  session: { value: '<id>', help: 'only this session' },
  source: { value: '<text>', help: 'where the note came from (a file, a URL)' },
  clear: { help: 'empty the scratchpad' },
  yes: { help: 'confirm: forgetting a session cannot be undone' },
  undo: { help: 'take back the last import as a whole' },
  write: { help: "write it into the project's AGENTS.md" },
  now: { help: 'summarise the session now if it is due, then show the summary' },
  'token-file': { value: '<file>', help: 'the bearer token to require (a private file; default: a new token, printed)' },
  when: { value: '<phrase>', help: 'when it runs: "in 2 hours", "tomorrow at 9", "every Monday at 10", a cron expression or an ISO time' },
  timezone: { value: '<zone>', help: "the IANA zone --when is read in and times are shown in (default: this machine's)" },
  name: { value: '<text>', help: 'a short name' },
  notify: { value: 'always|on_failure|never', help: 'when a run is notified (default always)' },
  'key-file': { help: 'where no keychain answers: keep the encryption key in a file only you can read (0600) in the store home' },
  server: { value: '<host[:port]>', help: 'the PostgreSQL server (default port 5432)' },
  database: { value: '<name>', help: 'the database on the server (default: the same as --user)' },
  user: { value: '<role>', help: 'the role to sign in as (an ordinary role: no superuser needed)' },
  schema: { value: '<name>', help: "this project's schema on the server (default: made from the project's id)" },
  tls: {
    value: 'verify-full|disable',
    help: "verify-full (default) checks the server's certificate and name; disable only for a server on this machine",
  },
  'ca-file': { value: '<file>', help: "the certificate authority that signed the server's certificate (default: the system's)" },
  cert: { value: '<file>', help: 'a client certificate (PEM) to sign in with, when the server asks for one (TLS only)' },
  'cert-key': { value: '<file>', help: "the client certificate's private key (PEM): read once and kept in the keychain" },
  author: { value: '<name>', help: "your name on the team, recorded with each change you push (default: this computer's user name)" },
  'password-stdin': { help: 'read the password from stdin (else AGENT_MEMORY_TEAM_PASSWORD, else the one kept from before)' },
  keep: { value: 'server|mine', help: "which version of a conflict to keep: the team's (server) or yours (mine)" },
} as const satisfies Record<string, OptionSpec>;
export type OptionName = keyof typeof OPTIONS;

/** Options every command takes (--json only where there is one object to print). */
export const COMMON_OPTIONS: readonly OptionName[] = ['workspace', 'home', 'verbose', 'help'];

export interface CommandSpec {
  /** The arguments after the command's name, as the usage line shows them. */
  args: string;
  summary: string;
  /** More about it, one paragraph. */
  about?: string;
  options: readonly OptionName[];
  /** What an option means for this command, where it differs from OPTIONS. */
  optionHelp?: Partial<Record<OptionName, string>>;
  examples: readonly string[];
  /** Prints no --json object (mcp serves a protocol; help prints text). */
  noJson?: boolean;
}

export const COMMAND_SPECS: Record<CommandName, CommandSpec> = {
  add: {
    args: '<text…|->',
    summary: 'store a memory, kept until deleted',
    about:
      'The text is the arguments joined by spaces; - reads it from stdin. Low-value text is not saved, and the answer says why. A very similar memory is named, never rewritten (with --automatic it is merged into it).',
    options: ['title', 'type', 'tags', 'importance', 'ttl', 'automatic', 'capture', 'scope'],
    optionHelp: { scope: "this project's store (default) or the global one, shared by every project" },
    examples: [
      'agent-memory add "Integration tests need the docker daemon." --tags testing',
      'git log -1 --format=%B | agent-memory add - --type decision',
    ],
  },
  search: {
    args: '<query…>',
    summary: 'find the memories relevant to a question, most relevant first',
    about: 'Keyword and meaning together; a query with nothing relevant answers "no relevant memories".',
    options: ['limit', 'type', 'tags', 'scope'],
    examples: ['agent-memory search "how do we run the integration tests" --limit 5'],
  },
  get: {
    args: '<id>',
    summary: 'one memory, in full',
    options: [],
    examples: ['agent-memory get 5d0c1f6e-8b2a-4c1e-9f3a-2b7d4e6a9c10'],
  },
  list: {
    args: '',
    summary: 'the memories, newest first',
    options: ['limit', 'offset', 'type', 'tags', 'scope'],
    examples: ['agent-memory list --type decision --limit 10'],
  },
  update: {
    args: '<id>',
    summary: 'change a memory (a new version; the old one stays in its history)',
    options: ['content', 'title', 'type', 'tags', 'importance'],
    examples: ['agent-memory update 5d0c1f6e-8b2a-4c1e-9f3a-2b7d4e6a9c10 --tags build,ci'],
  },
  delete: {
    args: '<id>',
    summary: 'delete a memory (restorable for a while: see removed and restore)',
    options: ['reason'],
    examples: ['agent-memory delete 5d0c1f6e-8b2a-4c1e-9f3a-2b7d4e6a9c10 --reason "the wiki moved"'],
  },
  restore: {
    args: '<id>',
    summary: 'bring back a deleted or expired memory',
    options: [],
    examples: ['agent-memory restore 5d0c1f6e-8b2a-4c1e-9f3a-2b7d4e6a9c10'],
  },
  removed: {
    args: '',
    summary: 'recently deleted and expired memories, restorable until they are purged',
    options: ['expired', 'deleted', 'limit', 'offset'],
    examples: ['agent-memory removed --deleted'],
  },
  history: {
    args: '<id>',
    summary: 'every change of a memory',
    options: [],
    examples: ['agent-memory history 5d0c1f6e-8b2a-4c1e-9f3a-2b7d4e6a9c10'],
  },
  export: {
    args: '<file|->',
    summary: 'write the memories to a JSONL file (one memory per line after a header line)',
    about:
      '- writes to stdout (the summary then goes to stderr). A link is written through to its target; a pipe, a FIFO, a device or a socket is written directly; a file is replaced atomically and is readable by you only (0600).',
    options: ['scope', 'format'],
    examples: ['agent-memory export ~/memories.jsonl', 'agent-memory export - | gzip > memories.jsonl.gz'],
  },
  import: {
    args: '<file|->',
    summary: 'read an export (JSONL, JSON, or an array of {content, …})',
    about:
      '- reads stdin. Exact duplicates are counted, not added again; bad lines are listed by number and skipped. Exit 1 when nothing could be imported.',
    options: [],
    examples: ['agent-memory import ~/memories.jsonl', 'gunzip -c memories.jsonl.gz | agent-memory import -'],
  },
  'import-from': {
    args: '',
    summary: 'import the memories kept in other tools: CLAUDE.md, AGENTS.md, Copilot, Cursor, Windsurf, Cline, Codex, VS Code',
    about:
      'Finds the memory files of other tools for this project and in your home folder and shows what would become which memory: split on headings, paragraphs and list items, typed where it can tell, duplicates of existing memories and what looks like a secret left out. --yes imports, each memory keeping its file and line; importing again adds nothing for unchanged files and updates what came from a changed one. --undo takes the last import back.',
    options: ['yes', 'undo'],
    optionHelp: { yes: 'import what the plan shows' },
    examples: ['agent-memory import-from', 'agent-memory import-from --yes', 'agent-memory import-from --undo'],
  },
  'agents-md': {
    args: '',
    summary: "the project's most important memories as an AGENTS.md section, for tools that read markdown only",
    about:
      "Prints the section; --write puts it into the project's AGENTS.md between two markers, replacing the section written before and keeping the rest of the file. Memories that came from AGENTS.md are left out, and import-from never reads the section back.",
    options: ['write'],
    examples: ['agent-memory agents-md', 'agent-memory agents-md --write'],
  },
  stats: {
    args: '',
    summary: 'how many memories each store holds, and where',
    options: [],
    examples: ['agent-memory stats --json'],
  },
  events: {
    args: '',
    summary: 'the change feed: every create, update, delete, merge, expire, restore and promote, oldest first',
    about:
      'Each change has a cursor; give the last one you saw as --since to get only what came after it. No memory text is in the feed: get a memory by its id. With --follow and --json, one JSON object per line, one per change.',
    options: ['since', 'follow', 'limit', 'scope'],
    optionHelp: { scope: "this project's store (default) or the global one", limit: 'at most n changes per page (1-1000, default 100)' },
    examples: ['agent-memory events --since 120 --json', 'agent-memory events --follow'],
  },
  webhooks: {
    args: '[list|deliveries|test|secret|retry] [name]',
    summary: "the project's webhooks: their state, recent deliveries and failures, a test event, signing secrets",
    about:
      'list (default) shows each webhook of webhooks.endpoints; deliveries the newest deliveries (of one webhook with its name); test sends a signed test event now; secret prints the signing secret, making one when there is none (nothing is sent before it exists); retry sends dead deliveries again.',
    options: ['failed', 'rotate', 'limit'],
    optionHelp: { limit: 'at most n deliveries (1-500, default 50)' },
    examples: ['agent-memory webhooks deliveries --failed', 'agent-memory webhooks secret ci', 'agent-memory webhooks test ci'],
  },
  'scan-secrets': {
    args: '',
    summary: 'find credentials stored by older versions (and with --redact, remove them everywhere)',
    about:
      'Looks at every memory, its history and the other records of both stores, and says how many secrets of which kinds are in which memories, never the secrets. With --redact each is replaced by [redacted: <kind>], the search indexes and vectors are made again, and the store is compacted so no file of it (log, snapshots, quarantine) keeps the old text.',
    options: ['redact'],
    examples: ['agent-memory scan-secrets', 'agent-memory scan-secrets --redact'],
  },
  schedule: {
    args: 'add <goal…> --when <phrase> | list | show <id> | runs <id> | update <id> | pause <id> | resume <id> | run <id> | delete <id>',
    summary: "reminders and recurring tasks: run by the store's owner, notified, kept with their run history",
    about:
      "A run recalls the memories relevant to the goal and, with the local model, writes a short answer; a VS Code window, agent-memory mcp or this command (run) runs them. Times are shown in the schedule's zone. update takes --when, --timezone, --name, --notify and --content (the goal).",
    options: ['when', 'timezone', 'name', 'notify', 'content', 'limit', 'offset'],
    optionHelp: { content: 'update: the new goal', limit: 'list: at most n schedules; runs: at most n runs (default 10)' },
    examples: [
      'agent-memory schedule add "remove the new-checkout feature flag" --when "after the 1st"',
      'agent-memory schedule add "what changed in this project\'s memory" --when "every Monday at 10" --timezone Europe/Berlin',
      'agent-memory schedule list',
    ],
  },
  session: {
    args: '<log|list|show|search|summary|forget> [session-id|query…]',
    summary: "agents' working sessions: log events, list, show a transcript, search, summary, forget",
    about:
      'session log <id> reads the events as JSON on stdin: one event, a list, or one per line; an event is the message ({"role", "content", …}) or {"payload", "sequence"}. session forget removes the session and everything of it; it asks for --yes.',
    options: ['agent', 'session', 'tags', 'limit', 'offset', 'now', 'yes'],
    optionHelp: { session: 'search: only this session', tags: 'search: only notes holding all these tags' },
    examples: [
      'echo \'{"role":"user","content":"Why is CI red?"}\' | agent-memory session log conv-42 --agent my-agent',
      'agent-memory session search "flaky checkout test"',
      'agent-memory session forget conv-42 --yes',
    ],
  },
  scratchpad: {
    args: '<session-id> [item…]',
    summary: "a session's scratchpad: shows it; with items replaces the whole list (at most 32 of at most 240 characters)",
    options: ['clear', 'agent'],
    examples: ['agent-memory scratchpad conv-42 "rerun CI twice" "remove the retry"', 'agent-memory scratchpad conv-42 --clear'],
  },
  note: {
    args: '<add|delete|list> [text…|note-id]',
    summary: 'working notes of a session, found by session search',
    options: ['session', 'tags', 'source', 'agent', 'limit'],
    optionHelp: { session: 'the session of the note (default: the shared notes session)' },
    examples: ['agent-memory note add "TZ must be UTC in CI" --tags ci --session conv-42', 'agent-memory note list --session conv-42'],
  },
  hook: {
    args: '<session-start|user-prompt-submit|stop>',
    summary: "Claude Code's hooks: reads Claude Code's hook input on stdin, answers its JSON on stdout",
    about:
      'session-start adds the project briefing with the last session\'s summary and scratchpad; user-prompt-submit adds the memories relevant to the prompt (nothing when none is); stop logs the turn from the transcript. "Set Up Other Agents…" in VS Code writes these hooks into Claude Code\'s settings.',
    options: [],
    examples: ['agent-memory hook session-start'],
    noJson: true,
  },
  encryption: {
    args: '<status|enable|disable|rotate|export-recovery-key|import-recovery-key>',
    summary: 'encrypt the stores at rest, or say whether they are, and manage their key',
    about:
      "The key is kept in the keychain; where none answers (a headless machine), enable and rotate need --key-file to keep it in a private file instead. enable encrypts every file of the stores this process or their owner writes, and checks the result before switching; disable writes them plain again. rotate rewraps the stores' keys under a new key. export-recovery-key prints the key that opens them on another machine; import-recovery-key reads one on stdin and keeps it here.",
    options: ['key-file', 'scope'],
    optionHelp: { scope: "only this store (default: the project's and the global one)" },
    examples: [
      'agent-memory encryption status',
      'agent-memory encryption enable --key-file',
      'agent-memory encryption export-recovery-key > recovery.txt',
      'agent-memory encryption import-recovery-key < recovery.txt',
    ],
  },
  team: {
    args: '<status|connect|sync|conflicts|resolve|disconnect>',
    summary: "share this project's memory with your other machines and your team through a PostgreSQL server",
    about:
      "connect signs in, makes the project's schema on the server, writes the settings to agent.yaml (never the password, which is kept in the keychain or a file only you can read) and uploads this store; after that every change is pushed and the team's are pulled in the background, and the memory keeps working offline. status says synced, how many changes wait, offline or conflicts; sync runs a round now; conflicts lists edits of yours the server did not take (another version came first) and resolve settles one; disconnect stops syncing and keeps the memory here.",
    options: ['server', 'database', 'user', 'schema', 'tls', 'ca-file', 'cert', 'cert-key', 'author', 'password-stdin', 'keep'],
    examples: [
      'agent-memory team connect --server db.example.com --user ana --database team_memory --password-stdin < pw.txt',
      'agent-memory team status',
      'agent-memory team conflicts',
      'agent-memory team resolve 5f0c… --keep mine',
    ],
  },
  mcp: {
    args: '',
    summary: 'serve the Model Context Protocol to an agent, on stdio (or Streamable HTTP)',
    about:
      'With --http, it listens on 127.0.0.1 only and every request needs the bearer token: a new one is printed on stderr and written next to the store, or give yours with --token-file.',
    options: ['http', 'host', 'token-file'],
    examples: ['agent-memory mcp', 'agent-memory mcp --http 7391'],
    noJson: true,
  },
  help: {
    args: '[command]',
    summary: "show the usage, or a command's options and an example",
    options: [],
    examples: ['agent-memory help export'],
    noJson: true,
  },
};

/** The options a command accepts: its own and the common ones. */
export function optionsOf(command: CommandName): OptionName[] {
  const spec = COMMAND_SPECS[command];
  return [...spec.options, ...COMMON_OPTIONS, ...(spec.noJson ? [] : (['json'] as const))];
}

const EXIT_CODES = 'Exit codes: 0 ok, 1 failure, 2 usage (a mistake on the command line). Errors are one line on stderr.';

const WIDTH = 96;
/** The widest command-with-arguments shown in the main usage's left column. */
const COMMAND_COLUMN = 24;

/** Words on lines of at most `width` characters. */
function paragraph(text: string, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

function optionLines(names: readonly OptionName[], own: CommandSpec['optionHelp'] = {}): string[] {
  const left = (n: OptionName) => {
    const o: OptionSpec = OPTIONS[n];
    return `${o.short ? `-${o.short}, ` : ''}--${n}${o.value ? ` ${o.value}` : ''}`;
  };
  const width = Math.max(...names.map((n) => left(n).length)) + 2;
  const pad = ' '.repeat(width + 2);
  return names.map((n) =>
    paragraph(own[n] ?? OPTIONS[n].help, WIDTH - pad.length)
      .map((l, i) => (i === 0 ? `  ${left(n).padEnd(width)}${l}` : pad + l))
      .join('\n'),
  );
}

/** `agent-memory --help`: the commands, the common options, where more help is, the exit codes. */
export function mainUsage(): string {
  // A command's arguments are shown beside it when they are short; long ones (schedule's) are in
  // its own help, so the summaries stay in one readable column.
  const left = (c: CommandName) => {
    const full = `${c} ${COMMAND_SPECS[c].args}`.trimEnd();
    return full.length <= COMMAND_COLUMN ? full : c;
  };
  const width = Math.max(...COMMANDS.map((c) => left(c).length)) + 2;
  const pad = ' '.repeat(width + 2);
  return [
    'Usage: agent-memory <command> [arguments] [options]',
    '',
    "The project's long-term memory, shared with VS Code and your agents.",
    '',
    'Commands:',
    ...COMMANDS.map((c) =>
      paragraph(COMMAND_SPECS[c].summary, WIDTH - pad.length)
        .map((l, i) => (i === 0 ? `  ${left(c).padEnd(width)}${l}` : pad + l))
        .join('\n'),
    ),
    '',
    'Common options:',
    ...optionLines(['workspace', 'home', 'json', 'verbose', 'help', 'version']),
    '',
    'Run "agent-memory help <command>" (or agent-memory <command> --help) for its options and an example.',
    EXIT_CODES,
  ].join('\n');
}

/** `agent-memory help <command>`: usage, what it does, its options, the common ones, examples. */
export function commandUsage(command: CommandName): string {
  const spec = COMMAND_SPECS[command];
  const own = spec.options.length ? ['', 'Options:', ...optionLines(spec.options, spec.optionHelp)] : [];
  return [
    `Usage: agent-memory ${command}${spec.args ? ` ${spec.args}` : ''}${spec.options.length ? ' [options]' : ''}`,
    '',
    ...paragraph(`${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.${spec.about ? ` ${spec.about}` : ''}`),
    ...own,
    '',
    'Common options:',
    ...optionLines(optionsOf(command).filter((o) => !spec.options.includes(o))),
    '',
    spec.examples.length > 1 ? 'Examples:' : 'Example:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    EXIT_CODES,
  ].join('\n');
}

/** The short reminder after a usage error: the command's usage line and where its help is. */
export function usageHint(command: CommandName | undefined): string {
  if (!command) return 'Run "agent-memory help" for the commands.';
  const spec = COMMAND_SPECS[command];
  return `Usage: agent-memory ${command}${spec.args ? ` ${spec.args}` : ''} [options]. Run "agent-memory help ${command}" for its options.`;
}
