/**
 * The Sessions view (docs/sessions.md "In VS Code"): the project's agent sessions by last
 * activity (agent, started, last active, summary in the tooltip), each with its scratchpad items
 * below it; a session opens as a read-only transcript document; "Resume" opens a new chat with
 * its summary and scratchpad (as data); "Forget Session" asks first (modal), then forgets it.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { SessionInfo } from '../../engine/protocol';
import { errorLine } from '../../present/errorText';
import { commandRegistrar } from '../common/commandTable';
import type { CommandId } from '../commandIds';
import { Debounced } from '../common/debounce';
import { RowsWatch } from '../common/rowsWatch';
import type { Logger } from '../host/log';
import { forgetQuestion, resumePrompt, sessionDetail, sessionRow, transcriptMarkdown } from './sessionsText';
import { SESSIONS_PAGE, firstSessions, showMoreLabel, type ShownSessions } from './sessionsPaging';
import { isDeactivating } from '../host/shutdown';

export const SESSIONS_VIEW_ID = 'agentMemory.sessions';
export const SESSION_SCHEME = 'agent-memory-session';
const PAGE = SESSIONS_PAGE;
/** Turns shown in a transcript document. */
const TRANSCRIPT_TURNS = 1000;

export const SESSION_COMMANDS = {
  open: 'agentMemory.openSession',
  resume: 'agentMemory.resumeSession',
  forget: 'agentMemory.forgetSession',
  refresh: 'agentMemory.refreshSessions',
  showMore: 'agentMemory.showMoreSessions',
} as const satisfies Record<string, CommandId>;

export type SessionNode =
  | { kind: 'session'; info: SessionInfo }
  | { kind: 'item'; text: string; sessionId: string }
  | { kind: 'more'; remaining: number }
  | { kind: 'message'; text: string };

export class SessionsTreeProvider implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Events and reconnects that change no row leave the tree alone (rowsWatch.ts says why). */
  readonly rows = new RowsWatch(
    () => this.fetchRows(),
    () => this.refresh(),
  );
  private readonly refreshLater = new Debounced(() => this.rows.check(), 300);
  private readonly subs: vscode.Disposable[] = [];
  /** Sessions shown: a page more for each "Show more…". */
  private shown = PAGE;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'sessions.changed') this.refreshLater.trigger();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        // After a restart or a takeover the rows are most often the same: a refresh would only open the gap.
        if (s.state === 'ready') void this.rows.check();
      }),
    );
  }

  refresh(): void {
    if (!isDeactivating()) this.changed.fire(undefined); // see shutdown.ts
  }

  private fetchRows(): Promise<ShownSessions<SessionInfo>> {
    return firstSessions((limit, offset) => this.engine.request('sessions.list', { limit, offset }), this.shown);
  }

  /** "Show more…": the next page of older sessions. */
  showMore(): void {
    this.shown += PAGE;
    this.refresh();
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    if (node?.kind === 'session')
      return (node.info.scratchpad?.items ?? []).map((text) => ({ kind: 'item', text, sessionId: node.info.sessionId }));
    if (node) return [];
    try {
      const page = await this.rows.read();
      const out: SessionNode[] = page.items.map((info) => ({ kind: 'session', info })); // empty: the view's welcome text explains
      if (page.remaining > 0) out.push({ kind: 'more', remaining: page.remaining });
      return out;
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list sessions: ${errorLine(e)}` }];
    }
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    if (node.kind === 'more') {
      const item = new vscode.TreeItem(showMoreLabel(node.remaining), vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: SESSION_COMMANDS.showMore, title: 'Show More Sessions' };
      return item;
    }
    if (node.kind === 'item') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('circle-large-outline');
      item.tooltip = node.text;
      item.contextValue = 'scratchpadItem';
      return item;
    }
    const s = node.info;
    const row = sessionRow(s);
    const hasItems = !!s.scratchpad?.items.length;
    const item = new vscode.TreeItem(
      row.label,
      hasItems ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `session:${s.sessionId}`;
    item.description = row.description;
    const tip = new vscode.MarkdownString();
    tip.appendText(sessionDetail(s)); // appendText escapes: session text is never rendered as markdown
    item.tooltip = tip;
    item.accessibilityInformation = { label: `${row.label}, ${row.description}` };
    item.iconPath = new vscode.ThemeIcon('comment-discussion');
    item.contextValue = 'agentSession';
    item.command = { command: SESSION_COMMANDS.open, title: 'Open Transcript', arguments: [s.sessionId] };
    return item;
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

class TranscriptDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly engine: EngineClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = new URLSearchParams(uri.query).get('id') ?? '';
    try {
      const info = await this.engine.request('sessions.get', { sessionId: id });
      if (!info) return `Session ${id} no longer exists: it was forgotten.\n`;
      const events = await this.engine.request('sessions.events', { sessionId: id, limit: TRANSCRIPT_TURNS });
      return transcriptMarkdown(info, events, info.events > events.length);
    } catch (e) {
      return `Cannot load session ${id}: ${errorLine(e)}\n`;
    }
  }
}

function sessionIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as SessionNode | undefined;
  return n && typeof n === 'object' && n.kind === 'session' ? n.info.sessionId : undefined;
}

async function pickSession(engine: EngineClient, placeHolder: string): Promise<string | undefined> {
  const page = await engine.request('sessions.list', { limit: PAGE });
  if (!page.items.length) {
    void vscode.window.showInformationMessage('No agent sessions yet: they appear when an agent logs its work.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    page.items.map((s) => ({ ...sessionRow(s), detail: s.summary?.text.replace(/\s+/g, ' ').slice(0, 200), id: s.sessionId })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.id;
}

export function registerSessionsView(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): SessionsTreeProvider {
  const tree = new SessionsTreeProvider(engine);
  const docs = new TranscriptDocuments(engine);
  context.subscriptions.push(
    tree,
    vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: tree }),
    vscode.workspace.registerTextDocumentContentProvider(SESSION_SCHEME, docs),
  );
  const run = commandRegistrar(context, log);
  const idOrPick = async (arg: unknown, placeHolder: string) => sessionIdOf(arg) ?? (await pickSession(engine, placeHolder));

  run(SESSION_COMMANDS.open, 'open session', async (arg?: unknown) => {
    const id = await idOrPick(arg, 'Open which session?');
    if (!id) return undefined;
    const uri = vscode.Uri.from({
      scheme: SESSION_SCHEME,
      path: `/Session ${id.replace(/[\\/]/g, '-')}.md`,
      query: new URLSearchParams({ id }).toString(),
    });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    return id;
  });
  run(SESSION_COMMANDS.resume, 'resume session', async (arg?: unknown) => {
    const id = await idOrPick(arg, 'Resume which session?');
    if (!id) return undefined;
    const info = await engine.request('sessions.get', { sessionId: id });
    if (!info) throw new Error(`Session ${id} no longer exists: it was forgotten.`);
    const query = resumePrompt(info);
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: true });
    return query;
  });
  run(SESSION_COMMANDS.forget, 'forget session', async (arg?: unknown) => {
    const id = await idOrPick(arg, 'Forget which session?');
    if (!id) return undefined;
    const info = await engine.request('sessions.get', { sessionId: id });
    if (!info) return undefined;
    const q = forgetQuestion(info);
    const answer = await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, 'Forget Session');
    if (answer !== 'Forget Session') return undefined;
    const r = await engine.request('sessions.forget', { sessionId: id, who: 'VS Code' });
    tree.refresh();
    void vscode.window.showInformationMessage(`Forgot the session of ${info.agent ?? 'an agent'}.`);
    return r;
  });
  run(SESSION_COMMANDS.refresh, 'refresh sessions', () => Promise.resolve(tree.refresh()));
  run(SESSION_COMMANDS.showMore, 'show more sessions', () => Promise.resolve(tree.showMore()));
  return tree;
}
