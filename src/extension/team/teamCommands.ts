/**
 * Team memory commands (docs/team.md "In VS Code"): "Connect to Team Memory…" asks for the
 * server step by step, then tests the connection, makes the project's schema and uploads the
 * store with progress (the engine's team.connect); the password goes to VS Code's secret storage
 * and the engine's keychain, never to agent.yaml. The status item's click says what the state
 * means, with Sync Now, the conflicts and Disconnect. Keep mine / keep theirs settle a conflict
 * (Suggestions view). "Disconnect" stops sharing and keeps every memory here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { TeamConflictInfo, TeamConnectParams, TeamOverview } from '../../engine/teamProtocol';
import { plural } from '../../core/text/plural';
import { errorLine } from '../../present/errorText';
import type { commandRegistrar } from '../common/commandTable';
import { SUGGESTIONS_VIEW_ID } from '../suggestions/suggestionsView';
import { TEAM_STATUS_COMMAND, type TeamStatusBar } from './teamStatusBar';
import { conflictLabel, memoryNameOf, parseServer, secretKey, teamStatusSentences } from './teamText';

export const TEAM_COMMANDS = {
  connect: 'agentMemory.connectTeam',
  disconnect: 'agentMemory.disconnectTeam',
  sync: 'agentMemory.syncTeam',
  status: TEAM_STATUS_COMMAND,
  keepMine: 'agentMemory.keepMyVersion',
  keepTheirs: 'agentMemory.keepTheirVersion',
} as const;

const STEPS = 6;

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}

interface Answers {
  server: string;
  database: string;
  user: string;
  tls: 'verify-full' | 'disable';
  author: string;
  /** Sign in with a client certificate too (or only): its files, and the server's authority when it has its own. */
  cert?: CertAnswers;
}

interface CertAnswers {
  certFile: string;
  keyFile: string;
  caFile?: string;
}

/** The secret storage key of a server's client certificate key (beside its password's). */
function clientKeySecret(server: string): string {
  return `${secretKey(server)}#clientKey`;
}

/** A server that signs in only with a client certificate says so when connected to without one. */
function wantsCertificate(e: unknown): boolean {
  return /client certificate|no encryption/i.test(errorLine(e));
}

async function pickFile(title: string, prev: string | undefined): Promise<string | undefined> {
  const uris = await vscode.window.showOpenDialog({
    title,
    canSelectMany: false,
    canSelectFolders: false,
    openLabel: 'Choose',
    filters: { 'PEM files': ['pem', 'crt', 'cer', 'key'], 'All files': ['*'] },
    ...(prev ? { defaultUri: vscode.Uri.file(prev) } : {}),
  });
  return uris?.[0]?.fsPath;
}

/** The client certificate's files, picked in file dialogs; the server's authority when it has its own. */
async function askCertificate(prev: CertAnswers | undefined): Promise<CertAnswers | undefined> {
  const certFile = await pickFile('Connect to Team Memory: your client certificate (PEM file)', prev?.certFile);
  if (!certFile) return undefined;
  const keyFile = await pickFile(
    "Connect to Team Memory: the certificate's private key (kept in secret storage and the keychain, never in agent.yaml)",
    prev?.keyFile,
  );
  if (!keyFile) return undefined;
  const ca = await vscode.window.showQuickPick(
    [
      { label: "The system's certificate authorities", value: 'system' as const },
      { label: 'A certificate authority file…', description: 'for a server with an authority of its own', value: 'file' as const },
    ],
    { title: "Connect to Team Memory: check the server's certificate against", ignoreFocusOut: true },
  );
  if (!ca) return undefined;
  if (ca.value === 'system') return { certFile, keyFile };
  const caFile = await pickFile("Connect to Team Memory: the server's certificate authority (PEM file)", prev?.caFile);
  return caFile ? { certFile, keyFile, caFile } : undefined;
}

/** The private key's text, or why it cannot be used. */
function readClientKey(file: string): string | { problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { problem: `The key file cannot be read: ${errorLine(e)}` };
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    return { problem: `${file} is not a private key in PEM form (-----BEGIN PRIVATE KEY-----).` };
  return text;
}

async function ask(step: number, o: vscode.InputBoxOptions): Promise<string | undefined> {
  return vscode.window.showInputBox({ title: `Connect to Team Memory (${step}/${STEPS})`, ignoreFocusOut: true, ...o });
}

/** Step 5: how to talk to the server; with a client certificate, its files. */
async function askTransport(prev: CertAnswers | undefined): Promise<{ tls: Answers['tls']; cert?: CertAnswers } | undefined> {
  const tls = await vscode.window.showQuickPick(
    [
      { label: "Encrypted, server's certificate checked", description: 'recommended', value: 'verify-full' as const },
      {
        label: 'Encrypted, signing in with a client certificate',
        description: 'for a server that asks for one',
        value: 'certificate' as const,
      },
      { label: 'Not encrypted', description: 'only for a server on this machine', value: 'disable' as const },
    ],
    { title: `Connect to Team Memory (5/${STEPS})`, placeHolder: 'How to talk to the server', ignoreFocusOut: true },
  );
  if (!tls) return undefined;
  const cert = tls.value === 'certificate' ? await askCertificate(prev) : undefined;
  if (tls.value === 'certificate' && !cert) return undefined;
  return { tls: tls.value === 'disable' ? 'disable' : 'verify-full', ...(cert ? { cert } : {}) };
}

/** The steps of Connect, each with the previous answer (a failed attempt asks again with them). */
async function askConnection(prev: Partial<Answers>): Promise<(Answers & { password: string }) | undefined> {
  const server = await ask(1, {
    prompt: 'The PostgreSQL server your team shares memory through: host, or host:port.',
    placeHolder: 'db.example.com:5432',
    value: prev.server ?? '',
    validateInput: (v) => {
      const p = parseServer(v);
      return typeof p === 'string' ? p : undefined;
    },
  });
  if (server === undefined) return undefined;
  const user = await ask(2, {
    prompt: 'The role to sign in as (an ordinary role that may create a schema in the database).',
    value: prev.user ?? '',
    validateInput: (v) => (v.trim() ? undefined : 'Write the role name.'),
  });
  if (user === undefined) return undefined;
  const database = await ask(3, { prompt: 'The database (empty: the one named like the role).', value: prev.database ?? '' });
  if (database === undefined) return undefined;
  const password = await ask(4, {
    prompt:
      "The role's password (empty when the server signs you in with a client certificate). It is kept in VS Code's secret storage and the system keychain, never in agent.yaml.",
    password: true,
  });
  if (password === undefined) return undefined;
  const transport = await askTransport(prev.cert);
  if (!transport) return undefined;
  const author = await ask(6, {
    prompt: 'Your name on the team: recorded with every change you share.',
    value: prev.author ?? userName(),
    validateInput: (v) => (v.trim() ? undefined : 'Write a name.'),
  });
  if (author === undefined) return undefined;
  return { server, user: user.trim(), database: database.trim(), password, ...transport, author: author.trim() };
}

/** The engine's connect parameters for the answers (the key read from its file), or why not. */
function connectParams(a: Answers & { password: string }): TeamConnectParams | { problem: string } {
  const server = parseServer(a.server) as { host: string; port: number };
  const params: TeamConnectParams = {
    ...server,
    user: a.user,
    database: a.database || undefined,
    // With a certificate an empty password means none (the one kept already, if any).
    password: a.cert && !a.password ? undefined : a.password,
    tls: a.cert ? 'verify-full' : a.tls,
    author: a.author,
  };
  if (!a.cert) return params;
  const key = readClientKey(a.cert.keyFile);
  if (typeof key !== 'string') return key;
  return { ...params, certFile: a.cert.certFile, clientKey: key, ...(a.cert.caFile ? { caFile: a.cert.caFile } : {}) };
}

export function registerTeamCommands(d: {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  statusBar: TeamStatusBar;
  run: ReturnType<typeof commandRegistrar>;
}): void {
  const { context, engine, statusBar, run } = d;
  let prev: Partial<Answers> = {};

  const connectWith = async (params: TeamConnectParams): Promise<TeamOverview> => {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Team memory' },
      async (progress) => {
        progress.report({ message: 'signing in and making the project’s place on the server…' });
        let shown = 0;
        const sub = engine.onEvent((e) => {
          if (e.type !== 'team.progress' || e.total === 0) return;
          const pct = Math.floor((e.done / e.total) * 100);
          progress.report({ message: `uploading memories: ${e.done} of ${e.total}`, increment: pct - shown });
          shown = pct;
        });
        try {
          return await engine.request('team.connect', params, { timeoutMs: 30 * 60_000 });
        } finally {
          sub.dispose();
        }
      },
    );
    const connected = result.status.connected ? result.status.server : undefined;
    if (connected && params.password !== undefined) await context.secrets.store(secretKey(connected), params.password);
    if (connected && params.clientKey !== undefined) await context.secrets.store(clientKeySecret(connected), params.clientKey);
    const s = await statusBar.refresh();
    // The round that uploads may be one a configuration reload started: the state says what is left, not the last round's counts.
    const left = s.connected && s.waiting ? ` ${plural(s.waiting, 'change')} still ${s.waiting === 1 ? 'waits' : 'wait'} to be sent.` : '';
    // Short enough for the toast: where the password is kept is in the connect steps and the docs.
    void vscode.window.showInformationMessage(`Connected to team memory: this project's memories are shared.${left}`);
    return s;
  };

  run(TEAM_COMMANDS.connect, 'Connect to Team Memory', async (given?: TeamConnectParams) => {
    // Other extensions and the tests may pass the settings; a person is asked.
    if (given && typeof given === 'object' && typeof given.host === 'string') return connectWith(given);
    let a = await askConnection(prev);
    while (a) {
      prev = a;
      const params = connectParams(a);
      try {
        if ('problem' in params) throw new Error(params.problem);
        return await connectWith(params);
      } catch (e) {
        // A server that wants a certificate is offered one at once, the other answers kept.
        const offer = !a.cert && wantsCertificate(e) ? ['Use a Client Certificate…'] : [];
        const again = await vscode.window.showErrorMessage(`Could not connect to team memory: ${errorLine(e)}`, ...offer, 'Try Again');
        if (again === 'Try Again') a = await askConnection(prev);
        else if (again === 'Use a Client Certificate…') {
          const cert = await askCertificate(prev.cert);
          a = cert ? { ...a, tls: 'verify-full', cert } : undefined;
        } else a = undefined;
      }
    }
  });

  run(TEAM_COMMANDS.sync, 'Sync Team Memory', async () => {
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Syncing team memory' }, () =>
      engine.request('team.sync', {}),
    );
    await statusBar.refresh();
    const { pushed, pulled, conflicts } = r.report;
    const parts = [
      ...(pushed ? [`${plural(pushed, 'change')} sent`] : []),
      ...(pulled ? [`${plural(pulled, 'change')} received`] : []),
      ...(conflicts ? [plural(conflicts, 'new conflict')] : []),
    ];
    vscode.window.setStatusBarMessage(`$(check) Team memory synced${parts.length ? `: ${parts.join(', ')}` : ''}`, 5000);
  });

  run(TEAM_COMMANDS.status, 'Team Memory', async () => {
    const s = await statusBar.refresh();
    if (!s.connected) {
      const pick = await vscode.window.showInformationMessage('This project is not connected to team memory.', 'Connect…');
      if (pick) await vscode.commands.executeCommand(TEAM_COMMANDS.connect);
      return;
    }
    const buttons = [...(s.conflicts ? ['Show Conflicts'] : []), 'Sync Now', 'Disconnect…'];
    const pick = await vscode.window.showInformationMessage(teamStatusSentences(s).join(' '), ...buttons);
    if (pick === 'Sync Now') await vscode.commands.executeCommand(TEAM_COMMANDS.sync);
    if (pick === 'Show Conflicts') await vscode.commands.executeCommand(`${SUGGESTIONS_VIEW_ID}.focus`);
    if (pick === 'Disconnect…') await vscode.commands.executeCommand(TEAM_COMMANDS.disconnect);
  });

  run(TEAM_COMMANDS.disconnect, 'Disconnect from Team Memory', async () => {
    const s = await statusBar.refresh();
    if (!s.connected) {
      void vscode.window.showInformationMessage('This project is not connected to team memory.');
      return;
    }
    const waiting = s.waiting ? ` ${plural(s.waiting, 'change')} made here ${s.waiting === 1 ? 'is' : 'are'} not sent.` : '';
    const ok = await vscode.window.showWarningMessage(
      `Stop sharing this project's memory through ${s.server}?`,
      {
        modal: true,
        detail: `Every memory stays on this machine; changes are no longer shared.${waiting} The saved password is forgotten.`,
      },
      'Disconnect',
    );
    if (ok !== 'Disconnect') return;
    await engine.request('team.disconnect', {});
    await context.secrets.delete(secretKey(s.server));
    await context.secrets.delete(clientKeySecret(s.server));
    await statusBar.refresh();
    void vscode.window.showInformationMessage('Disconnected from team memory. Every memory stays here.');
  });

  const settle = async (arg: unknown, keep: 'mine' | 'server'): Promise<void> => {
    const c = await conflictOf(engine, arg, keep === 'mine' ? 'Keep your version of which memory?' : 'Keep their version of which memory?');
    if (!c) return;
    await engine.request('team.resolve', { id: c.id, keep });
    await statusBar.refresh();
    vscode.window.setStatusBarMessage(
      `$(check) ${keep === 'mine' ? 'Your version is kept and shared' : 'Their version is kept'}: ${memoryNameOf(c)}`,
      5000,
    );
  };
  run(TEAM_COMMANDS.keepMine, 'Keep My Version', (arg?: unknown) => settle(arg, 'mine'));
  run(TEAM_COMMANDS.keepTheirs, 'Keep Their Version', (arg?: unknown) => settle(arg, 'server'));
}

/** The conflict a command is about: its row in the Suggestions view, its id, or one picked. */
async function conflictOf(engine: EngineClient, arg: unknown, placeHolder: string): Promise<TeamConflictInfo | undefined> {
  const list = await engine.request('team.conflicts', {});
  const id = typeof arg === 'string' ? arg : ((arg as { conflict?: { id?: string } } | undefined)?.conflict?.id ?? undefined);
  if (id) return list.find((c) => c.id === id);
  if (!list.length) {
    void vscode.window.showInformationMessage('No team memory conflicts to settle.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((c) => ({ label: memoryNameOf(c), description: conflictLabel(c).split(' · ')[0], c })),
    { placeHolder },
  );
  return pick?.c;
}
