// Extension-host tests, in the real VS Code with the built-in embedding model: a person's
// explicit save of a text very like a saved memory (Add Memory, @memory /remember) is kept as its
// own memory and the answer names the similar one; an automatic capture of the same kind is
// merged. A delete from the palette records who deleted it, without a reason repeating that.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { CreateMemoryResult, MemoryRecord } from '../../../src/engine/protocol';
import { renderRemoved } from '../../../src/extension/history/removedView';
import { BACKUP, BACKUP_14, BACKUP_30 } from '../../fixtures/closeDuplicates';
import { activeApi } from './activate';

function created(r: CreateMemoryResult | undefined): Extract<CreateMemoryResult, { status: 'created' }> {
  assert.ok(r && r.status === 'created', JSON.stringify(r));
  return r;
}

/** A ChatResponseStream stand-in that records what the participant writes, as plain text. */
function recordingStream() {
  const parts: string[] = [];
  const stream = {
    markdown: (v: string | vscode.MarkdownString) => parts.push(typeof v === 'string' ? v : v.value),
    reference: () => undefined,
    progress: () => undefined,
    button: () => undefined,
  } as unknown as vscode.ChatResponseStream;
  // MarkdownString.appendText escapes markdown (spaces become &nbsp;): compare the plain text.
  const text = () =>
    parts
      .join('')
      .replace(/&nbsp;/g, ' ')
      .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');
  return { stream, text };
}

suite('Explicit saves', () => {
  let api: AgentMemoryApi;

  suiteSetup(async () => {
    api = await activeApi();
  });

  test('Add Memory and /remember of a very similar text keep it as its own memory and name the similar one; a capture merges', async () => {
    const first = created(await vscode.commands.executeCommand<CreateMemoryResult>('agentMemory.addMemory', BACKUP)).memory;
    const second = created(await vscode.commands.executeCommand<CreateMemoryResult>('agentMemory.addMemory', BACKUP_14));
    const near = second.similar?.find((s) => s.id === first.id);
    assert.ok(near, `the first memory is named as similar: ${JSON.stringify(second)}`);
    assert.ok(near.similarity >= 0.92, `in the auto-merge band (${near.similarity})`);
    assert.ok(second.suggestions?.includes(near.suggestionId));
    const older = await api.engine.request('memory.get', { id: first.id });
    assert.equal(older?.version, 1, 'the older memory is not rewritten');
    assert.equal(older?.content, BACKUP);

    const chat = recordingStream();
    const token = new vscode.CancellationTokenSource().token;
    await api.chatHandler({ prompt: BACKUP_30, command: 'remember' }, { history: [] } as unknown as vscode.ChatContext, chat.stream, token);
    assert.match(chat.text(), /^Memory saved: The nightly backup job runs at 02:00 UTC and keeps 30/);
    assert.match(chat.text(), /similar to “The nightly backup job/);
    assert.match(chat.text(), /It is kept as its own memory, with (a merge suggestion|\d merge suggestions) to review\./);

    const capture = await api.engine.request('memory.create', {
      content: 'The nightly backup job runs at 02:00 UTC and keeps 60 daily snapshots in the backups bucket.',
      origin: 'capture',
    });
    assert.equal(capture.action, 'merged', `an automatic capture merges: ${JSON.stringify(capture)}`);
    const live = await api.engine.request('memory.list', { limit: 100 });
    const backups = live.items.filter((m: { preview: string }) => m.preview.startsWith('The nightly backup job runs at 02:00 UTC'));
    assert.equal(backups.length, 3, 'the three explicit saves are live; the capture was merged into one of them');
  });

  test('a delete from the palette records who deleted it, with no reason that says it again', async () => {
    const m = created(
      await vscode.commands.executeCommand<CreateMemoryResult>(
        'agentMemory.addMemory',
        'Explicit saves: the staging VPN needs the ops certificate.',
      ),
    ).memory;
    await vscode.commands.executeCommand('agentMemory.deleteMemory', m.id, { confirm: false });
    const gone = (await api.engine.request('memory.get', { id: m.id, includeDeleted: true })) as MemoryRecord;
    assert.equal(gone.deletedBy, 'user');
    assert.equal(gone.deleteReason, null);
    const last = (await api.engine.request('memory.history', { id: m.id })).at(-1)!;
    assert.deepEqual([last.event, last.changedBy, last.reason], ['deleted', 'user', null]);
    assert.match(renderRemoved(gone), /> This memory was deleted by user (just now|\d+ (seconds?|minutes?) ago)\./);
    assert.doesNotMatch(renderRemoved(gone), /deleted by .*deleted by/);
  });
});
