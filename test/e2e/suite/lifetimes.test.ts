// Extension-host tests of lifetimes and recovery (docs/lifecycle.md), through the commands a
// person runs: what they add is permanent, a deleted memory shows in "Recently Deleted and
// Expired" and comes back with "Undo Last Change" or "Restore Memory", opening a memory counts
// as one access while typing in search never does.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { CreateResult, MemoryRecord } from '../../../src/engine/protocol';
import type { RemovedNode } from '../../../src/extension/history/removedView';
import { activeApi } from './activate';

function created(r: CreateResult | undefined): MemoryRecord {
  assert.ok(r && r.status === 'created', JSON.stringify(r));
  return r.memory;
}

async function removedIds(api: AgentMemoryApi): Promise<string[]> {
  const nodes = await api.removed.getChildren();
  return nodes.flatMap((n: RemovedNode) => (n.kind === 'removed' ? [n.item.memory.id] : []));
}

suite('Lifetimes and recovery', () => {
  let api: AgentMemoryApi;

  suiteSetup(async () => {
    api = await activeApi();
  });

  test('Add Memory and @memory /remember are permanent; an agent capture is short-term', async () => {
    const added = created(
      await vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', 'Lifetimes: we squash-merge pull requests.'),
    );
    assert.equal(added.expiresAt, null);
    const chat = { markdown: () => undefined, progress: () => undefined, button: () => undefined };
    const saved = await api.chatHandler(
      { prompt: 'Lifetimes: the nightly build starts at 02:00 UTC.', command: 'remember' },
      { history: [] } as unknown as vscode.ChatContext,
      chat,
      new vscode.CancellationTokenSource().token,
    );
    const remembered = await api.engine.request('memory.get', { id: saved.metadata.recalled[0]! });
    assert.equal(remembered?.expiresAt, null, '/remember is permanent');
    const capture = created(
      await api.engine.request('memory.create', { content: 'Lifetimes: the agent saw the docs build warn twice.', origin: 'capture' }),
    );
    assert.equal(capture.ttlSeconds, 86400);
    const item = api.tree.getTreeItem({ kind: 'memory', memory: { ...capture, preview: capture.content, decisionCount: 0 } });
    assert.match(String(item.description), /^expires (tomorrow|in 1 day|in 2[34] hours)/, 'the tree shows the time left first');
  });

  test('a deleted memory is listed in Recently Deleted and Expired; Undo Last Change and Restore Memory bring it back', async () => {
    const m = created(
      await vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', 'Lifetimes: staging resets every Sunday night.'),
    );
    await vscode.commands.executeCommand('agentMemory.deleteMemory', m.id, { confirm: false });
    assert.ok((await removedIds(api)).includes(m.id), 'listed while deleted');
    const item = api.removed.getTreeItem({
      kind: 'removed',
      item: (await api.engine.request('memory.listRemoved', { reason: 'deleted' })).items.find((x) => x.memory.id === m.id)!,
    });
    assert.match(String(item.description), /^deleted (just now|\d+ minutes? ago)$/);
    assert.equal(item.contextValue, 'removedMemory.deleted');
    // Opened from the view: a read-only document named after the memory, with human dates.
    assert.equal(await vscode.commands.executeCommand('agentMemory.openRemovedMemory', m.id), m.id);
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc, 'the removed memory is shown');
    assert.equal(doc.uri.path, '/Lifetimes: staging resets every Sunday night (removed).md', 'no id in the name or breadcrumb');
    assert.match(doc.getText(), /^# Lifetimes: staging resets every Sunday night\n\n> This memory was deleted by /);
    assert.match(doc.getText(), /\n- [A-Z][a-z ]+ · project · created \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}\n/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const undone = await vscode.commands.executeCommand<string | undefined>('agentMemory.undoLastChange');
    assert.match(String(undone), /delete of “Lifetimes: staging resets/);
    assert.ok(await api.engine.request('memory.get', { id: m.id }), 'restored by Undo Last Change');
    assert.equal(await vscode.commands.executeCommand('agentMemory.undoLastChange'), undefined, 'nothing left to undo');

    await api.engine.request('memory.delete', { id: m.id });
    const restored = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.restoreMemory', m.id);
    assert.equal(restored?.deletedAt, null);
    assert.ok(!(await removedIds(api)).includes(m.id));
  });

  test('opening a memory counts once; searches from the panel never count', async () => {
    const m = created(
      await vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', 'Lifetimes: the quokka API pages by cursor.'),
    );
    for (let i = 0; i < 10; i++) await api.engine.request('search', { query: 'quokka API cursor' });
    await vscode.commands.executeCommand('agentMemory.openMemory', m.id);
    await vscode.commands.executeCommand('agentMemory.openMemory', m.id);
    let count = 0;
    for (let i = 0; i < 40 && count === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      count = (await api.engine.request('memory.get', { id: m.id }))!.accessCount;
    }
    assert.equal(count, 1, 'two opens within the hour: one access; ten searches: none');
  });
});
