// The README is true: its configuration reference is generated from CONFIG_SCHEMA, each
// behaviour it claims names the test that covers it (CLAIMS below), its Node requirement matches
// the dependencies' engines, and the developer documentation lives in docs/DEVELOPMENT.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, END, configReferenceTable, withReference } from '../scripts/config-reference';
import { CONFIG_SCHEMA } from '../src/core/config/index.js';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const development = readFileSync(join(root, 'docs', 'DEVELOPMENT.md'), 'utf8');

test('README configuration reference is generated from the schema and up to date', () => {
  assert.ok(readme.includes(BEGIN) && readme.includes(END), 'README has the reference markers');
  assert.equal(withReference(readme), readme, 'run: node --import tsx scripts/config-reference.ts');
});

test('every configuration key appears in the reference with its default', () => {
  const table = configReferenceTable();
  for (const spec of CONFIG_SCHEMA) assert.ok(table.includes(`| \`${spec.path}\` |`), spec.path);
  assert.equal(table.split('\n').length, CONFIG_SCHEMA.length + 2);
});

test('README shows how to start; the developer commands are in docs/DEVELOPMENT.md, which it links', () => {
  assert.match(readme, /npm start/);
  assert.match(readme, /\(docs\/DEVELOPMENT\.md\)/);
  assert.match(development, /npm test/);
  assert.match(development, /npm run test:e2e/);
  assert.ok(
    readme.includes('## One memory per project: windows, clones, the CLI and other agents'),
    'the CLI / MCP / several windows section',
  );
});

const TRUST_UI = 'test/e2e/ui/trust.ui.mjs';
const TRUST_HOST = 'test/e2e/suite/trust.test.ts';
const READINESS = 'test/extension/pipeline/pipelineReadiness.test.ts';
const CLI_USAGE = 'test/cli/usage.test.ts';
const CLI_EXPORT = 'test/cli/exportTargets.test.ts';
const CLI_IMPORT = 'test/cli/importFiles.test.ts';
const UX_UI = 'test/e2e/ui/memoryUx.ui.mjs';
const UX_HOST = 'test/e2e/suite/memoryUx.test.ts';

/** Each claim of the README (a phrase it must contain) and the test that shows it is true. */
const CLAIMS: { phrase: string; file: string; test: string }[] = [
  {
    phrase: 'Sessions, Schedules and Webhooks start collapsed',
    file: 'test/e2e/ui/presence.ui.mjs',
    test: 'every view of the Agent Memory container has room',
  },
  {
    phrase: 'It has six views, and a seventh once webhooks\nare configured',
    file: 'test/e2e/ui/webhooks.ui.mjs',
    test: 'the Webhooks view shows state',
  },
  {
    phrase: '**Copy Signing Secret** makes\n  one (after asking',
    file: 'test/e2e/ui/webhooks.ui.mjs',
    test: 'its actions test, make the secret and retry',
  },
  { phrase: 'kept fresh as deliveries go out', file: 'test/e2e/ui/webhooks.ui.mjs', test: 'the Webhooks view shows state' },
  {
    phrase: 'The signing secrets are kept in\nthe OS keychain',
    file: 'test/core/webhooks/secrets.test.ts',
    test: 'where a keychain answers, secrets are kept in it',
  },
  {
    phrase: 'where no keychain answers, in a file only\nyou can read, and `agent-memory webhooks` says which',
    file: 'test/cli/changes.test.ts',
    test: 'webhooks: list, signing secret',
  },
  {
    phrase: 'VS Code says it once at start-up (not on every start)',
    file: 'test/extension/trust/encryptionText.test.ts',
    test: 'the start-up notice is said once',
  },
  {
    phrase: '**Import Recovery Key…** button',
    file: 'test/engine/rpc.test.ts',
    test: 'an encrypted store whose key is missing fails with store_key_missing',
  },
  {
    phrase: 'writes the\nsettings to agent.yaml **without the password**',
    file: 'test/cli/team.test.ts',
    test: 'two machines share one project memory through the server',
  },
  {
    phrase: 'the first pushed wins and the other is kept as\na conflict',
    file: 'test/core/team/sync.test.ts',
    test: 'two edits of one memory: the first pushed wins',
  },
  {
    phrase: 'A memory that\nholds a credential never leaves the machine',
    file: 'test/core/team/sync.test.ts',
    test: 'a memory holding a credential stays',
  },
  {
    phrase: '**Connect to Team Memory…** asks\nfor the server step by step and uploads with progress',
    file: 'test/e2e/ui/team.ui.mjs',
    test: 'connect, status, offline, conflict kept mine, author shown, disconnect keeps the memory',
  },
  {
    phrase: 'each machine keeps working on its own copy when the server is down',
    file: 'test/cli/team.test.ts',
    test: 'offline changes wait',
  },
  { phrase: 'what it understood is shown while you type', file: 'test/e2e/ui/reminders.ui.mjs', test: 'New Reminder… reads' },
  { phrase: 'notification with Open, Snooze and Pause', file: 'test/e2e/ui/reminders.ui.mjs', test: 'a recurring one also with Pause' },
  {
    phrase: '**next run in words and its',
    file: 'test/e2e/ui/schedules.ui.mjs',
    test: 'the Schedules view: next run in words and zone',
  },
  { phrase: 'Pause, Resume, Run Now, Edit and Delete (it asks', file: 'test/e2e/ui/schedules.ui.mjs', test: 'Delete asks' },
  { phrase: 'Reminders… lists them with their next run', file: 'test/e2e/ui/schedules.ui.mjs', test: 'the Reminders… picker lists' },
  { phrase: '`agent-memory schedule`', file: 'test/cli/schedule.test.ts', test: 'agent-memory schedule: add, list, show' },
  { phrase: 'Recall…', file: TRUST_UI, test: 'recall answers without a model' },
  { phrase: 'VS Code does not pass chat requests to `@memory` at all', file: TRUST_UI, test: 'recall answers without a model' },
  { phrase: '**Save now** button', file: TRUST_UI, test: 'Add Memory asks type, tags, lifetime' },
  { phrase: '**permanent**', file: 'test/extension/memories/addMemorySteps.test.ts', test: 'defaults: permanent, general' },
  { phrase: 'scope (moves it between this project and global) or lifetime', file: TRUST_HOST, test: 'Edit can change the scope' },
  { phrase: 'appears in the **Problems** panel and as a squiggle', file: TRUST_UI, test: 'invalid agent.yaml gives a Problems entry' },
  {
    phrase: 'each problem is written to the log once',
    file: 'test/extension/config/configProblems.test.ts',
    test: 'each problem logged once',
  },
  {
    phrase: 'You get **one** notification',
    file: 'test/extension/config/configProblems.test.ts',
    test: 'one notification per distinct set',
  },
  { phrase: 'the file says so at that value', file: 'test/extension/config/configProblems.test.ts', test: 'overrides' },
  { phrase: 'status bar item turns to a\nwarning', file: TRUST_UI, test: 'invalid agent.yaml gives a Problems entry' },
  { phrase: 'JSON schema', file: 'test/extension/config/configSchemaJson.test.ts', test: 'package.json contributes it' },
  { phrase: 'offers to pull a missing model (with progress)', file: READINESS, test: 'pulls through /api/pull' },
  { phrase: '"waiting for Ollama"', file: READINESS, test: 'waiting for Ollama' },
  { phrase: 'Import keeps `created_at`', file: 'test/e2e/suite/surfaces.test.ts', test: 'export' },
  {
    phrase: 'compacts the store so none of its files on disk keeps the old text',
    file: 'test/cli/secrets.test.ts',
    test: 'CLI scan-secrets',
  },
  { phrase: 'new saves are redacted as they are written', file: 'test/cli/secrets.test.ts', test: 'the five kinds added are redacted' },
  {
    phrase: 'Every\nclone and worktree with the same `origin` therefore shares one memory',
    file: 'test/engine/storeLocation.test.ts',
    test: 'two clones with the same origin open the same store',
  },
  {
    phrase: 'the old folder is then renamed',
    file: 'test/engine/worker/storeMigration.test.ts',
    test: 'merge into the shared store without loss',
  },
  {
    phrase: 'applied exactly once or reported as\nfailed, never twice',
    file: 'test/engine/worker/owner/takeover.test.ts',
    test: 'none applied twice',
  },
  {
    phrase: "closing a\nwindow or ending an agent's command fails nobody's save",
    file: 'test/engine/worker/owner/ownerLeaves.test.ts',
    test: 'the owning CLI exits with an update in flight',
  },
  {
    phrase: 'one client takes the store over within a couple of seconds while the others wait for it',
    file: 'test/engine/worker/owner/sharedTransport.test.ts',
    test: 'of five clients one starts an engine, the others connect to it',
  },
  {
    phrase: 'searches and new memories in flight are sent again by themselves',
    file: 'test/engine/worker/owner/ownerLeaves.test.ts',
    test: 'the owning CLI is killed while six loops',
  },
  {
    phrase: 'in the same transaction as the change, with a cursor',
    file: 'test/core/changes/events.test.ts',
    test: 'a transaction that fails leaves no event',
  },
  {
    phrase: '`--follow` keeps printing them as they come until Ctrl+C',
    file: 'test/cli/changes.test.ts',
    test: '--follow prints what another process changes until Ctrl+C',
  },
  {
    phrase: 'subscribe to the resource\n`memory://changes/project` and are told of every change',
    file: 'test/mcp/changes.test.ts',
    test: 'a subscription is told of each change',
  },
  {
    phrase: "**Nothing is sent until the webhook's signing secret exists**",
    file: 'test/engine/worker/services/webhooks.test.ts',
    test: 'nothing is sent before the signing secret exists',
  },
  {
    phrase: 'retried with exponential backoff and never slows a write',
    file: 'test/core/webhooks/delivery.test.ts',
    test: 'writes meanwhile do not wait for it',
  },
  {
    phrase: '`agent-memory webhooks deliveries --failed` lists it',
    file: 'test/cli/changes.test.ts',
    test: 'webhooks: list, signing secret, test event, deliveries and failures',
  },
  { phrase: '`--json` prints exactly one JSON object', file: 'test/cli/main.test.ts', test: 'every command: --json output and exit codes' },
  {
    phrase: "`agent-memory help <command>` (or\n`<command> --help`) shows a command's options and an example",
    file: CLI_USAGE,
    test: 'help for every command',
  },
  { phrase: '`--version` prints the version', file: CLI_USAGE, test: 'print the version of package.json' },
  { phrase: 'a mistyped command or option gets the closest one suggested', file: CLI_USAGE, test: 'suggests the closest' },
  { phrase: '(default: the current folder; it must exist)', file: CLI_USAGE, test: 'a --workspace that does not exist' },
  {
    phrase: 'memories are named by their title or first\nwords',
    file: 'test/cli/output.test.ts',
    test: 'names an untitled memory by its first words',
  },
  { phrase: '`-` reads stdin (`add -`, `import -`)', file: 'test/cli/output.test.ts', test: 'add - reads the text from stdin' },
  { phrase: '`-` reads stdin (`add -`, `import -`)', file: CLI_IMPORT, test: 'import -: the memories come from stdin' },
  { phrase: 'or writes\nto stdout (`export -`)', file: CLI_EXPORT, test: 'export -: the export goes to stdout' },
  { phrase: 'written through a symbolic link to its target', file: CLI_EXPORT, test: 'the link is kept' },
  { phrase: 'straight\ninto a pipe, FIFO or device', file: CLI_EXPORT, test: 'a reader gets the export, the FIFO stays a FIFO' },
  { phrase: 'a file readable by you only (0600)', file: CLI_EXPORT, test: 'both are private (0600)' },
  { phrase: 'an import refuses folders and binary files', file: CLI_IMPORT, test: 'import of a folder or a binary file' },
  { phrase: 'reads any line endings', file: CLI_IMPORT, test: 'CRLF, CR-only or LF line endings all work' },
  { phrase: 'lists the failing\nlines by number', file: CLI_IMPORT, test: 'the failing lines listed with their reason' },
  {
    phrase: 'An id that never existed is told\napart from a deleted memory',
    file: 'test/cli/output.test.ts',
    test: 'an id that never existed and a deleted memory are told apart',
  },
  { phrase: 'also an import where every line failed', file: CLI_IMPORT, test: 'import where every line fails: exit 1' },
  { phrase: 'no arguments at all print the usage', file: CLI_USAGE, test: 'no arguments: the usage on stderr and exit 2' },
  { phrase: 'the export file is readable by you only', file: 'test/engine/transferFiles.test.ts', test: 'private files' },
  { phrase: 'Recalled text comes back marked as data', file: 'test/mcp/server.test.ts', test: 'the MCP SDK client lists the tools' },
  {
    phrase: 'Every tool says whether it only reads, can destroy\nor is safe to repeat',
    file: 'test/mcp/surface.test.ts',
    test: 'every MCP tool is annotated, has an output schema',
  },
  { phrase: 'recalled memories carry their relevance (0 to 1)', file: 'test/mcp/surface.test.ts', test: 'answers with structured content' },
  { phrase: 'The server also offers **resources**', file: 'test/mcp/capabilities.test.ts', test: 'resources, prompts, completions' },
  {
    phrase: '**completions** of memory types, tags,\nmemory ids and session ids',
    file: 'test/mcp/capabilities.test.ts',
    test: 'completions',
  },
  { phrase: '**logging** at the level the client sets', file: 'test/mcp/capabilities.test.ts', test: 'logging levels and progress' },
  { phrase: '**REST API.**', file: 'test/mcp/restApi.test.ts', test: 'the REST API /api/v1 through fetch' },
  {
    phrase: '| Zed | `~/.config/zed/settings.json` (`context_servers`;',
    file: 'test/extension/agents/agentConfigs.test.ts',
    test: 'Gemini CLI, Copilot CLI, Windsurf and Zed',
  },
  {
    phrase: '| Gemini CLI | `~/.gemini/settings.json`',
    file: 'test/extension/agents/agentConfigs.test.ts',
    test: 'Gemini CLI, Copilot CLI',
  },
  {
    phrase: 'an AGENTS.md section of your most important memories',
    file: 'test/cli/importFrom.test.ts',
    test: 'agents-md: the most important',
  },
  {
    phrase: '**Import Memories from Other Tools…**',
    file: 'test/e2e/suite/toolImport.test.ts',
    test: 'the files of other tools become memories',
  },
  { phrase: '**Export as AGENTS.md Section**', file: 'test/e2e/suite/toolImport.test.ts', test: 'the AGENTS.md section is not read back' },
  { phrase: 'shows a\nplan first', file: 'test/cli/importFrom.test.ts', test: 'import-from: plan' },
  {
    phrase: "the user and\nrepository memory of VS Code's memory tool",
    file: 'test/cli/importFrom.test.ts',
    test: "import-from reads VS Code's memory tool",
  },
  {
    phrase: 'importing again adds nothing for unchanged files and updates\nwhat came from a changed one',
    file: 'test/cli/importFrom.test.ts',
    test: 'idempotent re-import, a changed file updates, one undo',
  },
  { phrase: "**Errors are JSON with the engine's error code**", file: 'test/mcp/restApi.test.ts', test: 'errors, OpenAPI' },
  { phrase: 'OpenAPI document is served at `/api/v1/openapi.json`', file: 'test/mcp/restApi.test.ts', test: 'OpenAPI' },
  { phrase: 'removed when the\nserver stops', file: 'test/mcp/httpServer.test.ts', test: 'the SDK Streamable HTTP client lists the tools' },
  {
    phrase: 'the file of a server that was killed is removed by the next one that starts',
    file: 'test/mcp/httpServer.test.ts',
    test: 'a 401 names the Bearer scheme and offers no OAuth',
  },
  {
    phrase: 'stops with a message\nsaying to send the header; no sign-in page is opened',
    file: 'test/mcp/httpServer.test.ts',
    test: 'a 401 names the Bearer scheme and offers no OAuth',
  },
  {
    phrase: 'A store home is never shared between users',
    file: 'test/engine/socket/privateDir.test.ts',
    test: 'the store home must be writable by nobody else',
  },
  {
    phrase: 'another user made or can open is refused, never used',
    file: 'test/engine/socket/otherUser.test.ts',
    test: 'a runtime folder made first by another user is refused',
  },
  {
    phrase: 'connects only to a socket of your own user',
    file: 'test/engine/socket/privateDir.test.ts',
    test: 'a runtime folder, socket or store home of another user is refused',
  },
  {
    phrase: 'without ever sending it',
    file: 'test/engine/socket/handshake.test.ts',
    test: 'the client sends a nonce and nothing else until the owner proves it knows the secret',
  },
  { phrase: 'says so and\nwhat to run', file: 'test/cli/encryption.test.ts', test: 'encryption from the CLI: no keychain said so' },
  { phrase: 'keeps the key in a file readable by you\nonly', file: 'test/cli/encryption.test.ts', test: 'enable with a key file' },
  { phrase: '(`import-recovery-key` reads it there, on stdin)', file: 'test/cli/encryption.test.ts', test: 'recovery key on another home' },
  { phrase: 'the store is never opened as empty', file: 'test/core/store/encryption.test.ts', test: 'without its key, with another key' },
  {
    phrase: 'A kill at any\nmoment of a switch leaves the old store or the new one',
    file: 'test/core/store/encryptionKill.test.ts',
    test: 'never a half-switched store',
  },
  ...agentSetupClaims(),
  ...sessionClaims(),
  { phrase: 'Save now stores that title too', file: UX_UI, test: 'Save now stores the first sentence as the title' },
  { phrase: 'Types are named in words', file: UX_UI, test: 'Add Memory names types in words' },
  { phrase: 'starting at the type', file: UX_UI, test: 'Add Selection starts at the type step, with Save now and no Back' },
  { phrase: 'a wrong value there is underlined and listed in Problems', file: UX_HOST, test: 'wrong values are diagnostics at the value' },
  { phrase: 'An expiry is told in a notification', file: UX_UI, test: 'an expiry is told with a notification' },
  { phrase: 'offers Keep Permanently', file: UX_UI, test: 'Keep Permanently keeps it' },
  { phrase: 'offered on short-term memories only', file: UX_UI, test: '"Make permanent" only on short-term memories' },
  { phrase: 'says where the memory can be restored, and for how long', file: UX_UI, test: 'the delete dialog says where and how long' },
];

/** README "Other agents (MCP)": what Set Up Other Agents… writes, shown by the real clients (test/agents). */
function agentSetupClaims(): { phrase: string; file: string; test: string }[] {
  const clients = 'test/agents/agentClients.process.test.ts';
  const files = 'test/extension/agents/agentConfigFiles.test.ts';
  const launcher = 'test/extension/agents/agentLauncher.test.ts';
  return [
    {
      phrase: '`~/.claude.json` (what `claude mcp add --scope user` writes)',
      file: clients,
      test: '`claude mcp list` and `get` report it connected',
    },
    {
      phrase: 'read by the `cn` command line and the extension',
      file: clients,
      test: '`cn` loads the server from ~/.continue/config.yaml',
    },
    { phrase: 'other servers, settings and comments stay, keys you added', file: files, test: 'keys the person added to it stay' },
    { phrase: 'running the setup again changes nothing', file: files, test: 'writeAgentConfig writes each user-level file once' },
    { phrase: '"duplicate key") is repaired', file: clients, test: 'holds one table after two setups (an old duplicate repaired)' },
    { phrase: 'so an update never\nbreaks the agents', file: launcher, test: 'after an update the launcher finds the new version' },
    { phrase: 'agents need no Node on the PATH', file: launcher, test: "with VS Code's runtime as Node and passes --home first" },
    { phrase: 'when\nthe extension was uninstalled, it says so and exits', file: launcher, test: 'uninstalled: it says so and exits 1' },
    {
      phrase: 'an agent that passes on only some environment variables (Codex) still opens your memory',
      file: clients,
      test: 'its MCP client lists and calls our tools',
    },
    { phrase: 'Cursor passes its open folder', file: clients, test: 'runs the exact command line of each written entry (Cursor too)' },
    { phrase: 'what `/mcp add` writes', file: clients, test: '`copilot mcp get` reads ~/.copilot/mcp-config.json' },
    {
      phrase: '`$COPILOT_HOME` when set',
      file: 'test/extension/agents/agentConfigs.test.ts',
      test: 'Gemini CLI, Copilot CLI, Windsurf and Zed',
    },
    { phrase: '| Gemini CLI | `~/.gemini/settings.json` (`mcpServers`)', file: clients, test: '`gemini mcp list` reports the server' },
    {
      phrase: '`.mcp.json` and `.cursor/mcp.json` name no path of yours',
      file: clients,
      test: "names no one's path and reaches each person's store",
    },
    { phrase: 'a teammate without it sees a server that does not start', file: clients, test: 'A teammate without the extension' },
    {
      phrase: 'Claude Code asks each person once before starting',
      file: clients,
      test: 'Claude Code asks before starting a project server',
    },
    {
      phrase: 'Offered when your store is in the default `~/.agent-memory`',
      file: 'test/extension/agents/agentConfigs.test.ts',
      test: 'project files name no path of this person',
    },
  ];
}

/** README "Agent sessions": the session tools, commands and Claude Code hooks. */
function sessionClaims(): { phrase: string; file: string; test: string }[] {
  const mcp = 'test/mcp/sessions.test.ts';
  const hook = 'test/cli/hook.test.ts';
  return [
    { phrase: '`recall_memories` also returns passages of earlier sessions', file: mcp, test: 'sessions through the MCP SDK client' },
    { phrase: "ends with the last session's summary and open\nscratchpad items", file: mcp, test: 'briefing' },
    {
      phrase: 'forgetting a session asks for `--yes` first',
      file: 'test/cli/sessions.test.ts',
      test: 'session, scratchpad and note through the CLI',
    },
    {
      phrase: 'writes hooks into\n`~/.claude/settings.json` beside your own',
      file: 'test/extension/agents/claudeHooks.test.ts',
      test: 'beside the person’s own',
    },
    { phrase: 'the memories relevant to each prompt (nothing when\nnone is)', file: hook, test: 'prompt recall' },
    { phrase: 'each turn logged at its end, once', file: hook, test: 'stop logs the turn' },
  ];
}

test('every claim in CLAIMS is in the README and names an existing test', () => {
  for (const c of CLAIMS) {
    assert.ok(readme.includes(c.phrase.replace(/\\n/g, '\n')), `README claims: ${c.phrase}`);
    const file = join(root, c.file);
    assert.ok(existsSync(file), `${c.file} exists`);
    assert.ok(readFileSync(file, 'utf8').includes(c.test), `${c.file} has a test "${c.test}"`);
  }
});

/** Lowest Node major a package's `engines.node` allows (">= 14.6" → 14, "4.x || >=6.0.0" → 4). */
function minNodeMajor(range: string): number {
  return Math.min(...[...range.matchAll(/(\d+)(?:\.[\dx]+)*/g)].map((m) => Number(m[1])));
}

test("the Node requirement the README and docs state matches the dependencies' engines", () => {
  type Deps = { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Deps;
  const need = (name: string) => {
    const f = join(root, 'node_modules', name, 'package.json');
    const engines = existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { engines?: { node?: string } }).engines : undefined;
    return engines?.node ? minNodeMajor(engines.node) : 0;
  };
  assert.match(readme, /Node 20 or later/);
  assert.match(development, /\*\*Node 20 or later\*\*/);
  // `npm run package` included: the packaging test runs it in `npm test` on CI's Node 20.
  for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]) {
    assert.ok(need(name) <= 20, `${name} needs Node ${need(name)}`);
  }
  const runtime = Math.max(...Object.keys(pkg.dependencies).map(need));
  assert.ok(runtime <= 18, `run-time dependencies need Node ${runtime}; docs/DEVELOPMENT.md says 18`);
});
