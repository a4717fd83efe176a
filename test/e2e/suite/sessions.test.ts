// Extension-host tests of agent sessions in the real VS Code (docs/sessions.md "In VS Code"):
// @memory records its turns as a session of this window (the prompt and the answer, in order),
// and the setting agentMemory.storage.recordChatSessions turns the recording off.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import { chatSessionId } from '../../../src/extension/sessions/chatRecorder';
import { SESSION_COMMANDS, type SessionNode } from '../../../src/extension/sessions/sessionsView';
import { SESSIONS_PAGE } from '../../../src/extension/sessions/sessionsPaging';
import { activeApi } from './activate';

const noToken: vscode.CancellationToken = new vscode.CancellationTokenSource().token;
const chatContext = { history: [] } as unknown as vscode.ChatContext;
const stream = { markdown: () => undefined, progress: () => undefined, button: () => undefined };

async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string, limitMs = 20_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() - t0 > limitMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

suite('Sessions', () => {
  let api: AgentMemoryApi;
  suiteSetup(async () => {
    api = await activeApi();
  });

  test('@memory records its turns as a session; the setting turns it off', async () => {
    const sessionId = chatSessionId(vscode.env.sessionId);
    const events = () => api.engine.request('sessions.events', { sessionId, limit: 1000 }).catch(() => []);
    const before = (await events()).length;
    await api.chatHandler(
      { prompt: 'Sessions host test: the kiwi queue drains at midnight.', command: 'remember' },
      chatContext,
      stream,
      noToken,
    );
    const logged = await until(events, (e) => e.length >= before + 2, 'the recorded turn');
    const [user, assistant] = logged.slice(before).map((e) => e.payload as { role: string; content: string });
    assert.equal(user?.role, 'user');
    assert.equal(user?.content, '/remember Sessions host test: the kiwi queue drains at midnight.');
    assert.equal(assistant?.role, 'assistant');
    assert.match(assistant?.content ?? '', /Memory saved/);
    assert.equal((await api.engine.request('sessions.get', { sessionId }))?.agent, 'VS Code chat');

    const config = vscode.workspace.getConfiguration('agentMemory');
    await config.update('storage.recordChatSessions', false, vscode.ConfigurationTarget.Global);
    try {
      const count = (await events()).length;
      await api.chatHandler({ prompt: 'kiwi queue', command: undefined }, chatContext, stream, noToken);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await events()).length, count, 'nothing recorded with the setting off');
    } finally {
      await config.update('storage.recordChatSessions', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('the Sessions view shows a page of sessions and "Show more…" loads the next', async () => {
    const { total: before } = await api.engine.request('sessions.list', { limit: 1 });
    const add = Math.max(0, SESSIONS_PAGE + 7 - before);
    for (let i = 0; i < add; i++)
      await api.engine.request('sessions.log', {
        sessionId: `paging-host-test-${i}`,
        events: [{ payload: { role: 'user', content: `Paging host test ${i}` } }],
        agent: 'host test',
      });
    const total = before + add;
    const sessionsOf = (nodes: SessionNode[]) => nodes.filter((n) => n.kind === 'session').length;
    let nodes = await api.sessions.getChildren();
    assert.equal(sessionsOf(nodes), SESSIONS_PAGE);
    const more = nodes.at(-1)!;
    assert.equal(more.kind, 'more');
    assert.equal(more.kind === 'more' && more.remaining, total - SESSIONS_PAGE);
    const item = api.sessions.getTreeItem(more);
    assert.match(item.label as string, /^Show more… \(\d+ more sessions?\)$/);
    assert.equal(item.command?.command, SESSION_COMMANDS.showMore);
    await vscode.commands.executeCommand(item.command.command);
    nodes = await api.sessions.getChildren();
    assert.equal(sessionsOf(nodes), Math.min(total, 2 * SESSIONS_PAGE));
    assert.equal(nodes.at(-1)!.kind === 'more', total > 2 * SESSIONS_PAGE);
  });
});
