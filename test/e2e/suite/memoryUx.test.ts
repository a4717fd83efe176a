// Saving and editing memories in the real extension host (issue 19): a memory saved without a
// title step gets the first sentence as its title; a memory document's wrong values are
// diagnostics at the value, Ctrl+S's command refuses with the value selected, and lifetimes are
// read as agent.yaml and the CLI read them; Promote refuses a permanent memory; a compare tab is
// retitled after a restore.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, teardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { CreateResult, MemoryRecord } from '../../../src/engine/protocol';
import { activeApi } from './activate';
import { until } from '../../helpers/until';

let api: AgentMemoryApi;

function created(r: CreateResult | undefined): MemoryRecord {
  assert.ok(r && r.status === 'created', JSON.stringify(r));
  return r.memory;
}

async function get(id: string): Promise<MemoryRecord> {
  const m = await api.engine.request('memory.get', { id });
  assert.ok(m, `memory ${id} exists`);
  return m;
}

/** Replaces `from` with `to` in the active memory document, as typing does (the document becomes dirty). */
async function replace(doc: vscode.TextDocument, from: string, to: string): Promise<void> {
  const at = doc.getText().indexOf(from);
  assert.ok(at >= 0, `the document contains ${from}`);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(at), doc.positionAt(at + from.length)), to);
  assert.ok(await vscode.workspace.applyEdit(edit));
}

const create = async (content: string, extra: Record<string, unknown> = {}) =>
  created(await api.engine.request('memory.create', { content, ttlSeconds: null, allowNearDuplicate: true, ...extra }));

suite('Saving and editing memories', () => {
  suiteSetup(async () => {
    api = await activeApi();
  });
  teardown(async () => {
    for (const d of vscode.workspace.textDocuments.filter((x) => x.isDirty && x.uri.scheme === 'agent-memory')) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a memory saved without the title step gets the title that step proposes: its first sentence', async () => {
    const text = created(
      await vscode.commands.executeCommand<CreateResult>(
        'agentMemory.addMemory',
        'Deploy freeze starts Friday at noon. No merges after that without the release captain.',
      ),
    );
    assert.equal(text.title, 'Deploy freeze starts Friday at noon.');
    const fields = created(
      await vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', {
        content: 'The wombat queue drains every night at 03:00 UTC.\nIt restarts at 03:10.',
        tags: ['ops'],
      }),
    );
    assert.equal(fields.title, 'The wombat queue drains every night at 03:00 UTC.', 'the first line');
    const own = created(
      await vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', {
        content: 'Wombat dashboards live in the ops folder of Grafana.',
        title: 'Wombat dashboards',
      }),
    );
    assert.equal(own.title, 'Wombat dashboards', 'a title given is kept');
  });

  test("a memory document's wrong values are diagnostics at the value; the save command refuses with the value selected", async () => {
    const m = await create('The numbat build cache is wiped every Sunday night.', { title: 'Numbat cache wipe' });
    await vscode.commands.executeCommand('agentMemory.openMemory', m.id);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor && editor.document.uri.scheme === 'agent-memory');
    const doc = editor.document;
    await replace(doc, 'importance: 0.5', 'importance: high');
    await replace(doc, 'lifetime: permanent', 'lifetime: forever');
    const diagnostics = await until(
      'two diagnostics',
      () => {
        const d = vscode.languages.getDiagnostics(doc.uri);
        return d.length === 2 ? d : undefined;
      },
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      diagnostics.map((d) => [doc.getText(d.range), d.severity, d.source]),
      [
        ['high', vscode.DiagnosticSeverity.Error, 'Agent Memory'],
        ['forever', vscode.DiagnosticSeverity.Error, 'Agent Memory'],
      ],
    );
    assert.equal(diagnostics[0]!.message, 'importance: must be a number from 0 to 1, not "high"');
    assert.match(diagnostics[1]!.message, /^lifetime: write "permanent" or a duration like "7 days", "12h" or "30m", not "forever"$/);

    // Ctrl+S's command (the keybinding while the document has a wrong value): nothing saved, the value selected.
    assert.equal(await vscode.commands.executeCommand('agentMemory.saveMemoryDocument'), false);
    assert.ok(doc.isDirty, 'the text stays as typed');
    assert.equal((await get(m.id)).version, 1, 'nothing written');
    assert.equal(doc.getText(editor.selection), 'high');
    // Other saves reach the file system provider, which refuses with the same words.
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(doc.getText()))),
      /Not saved — importance: must be a number from 0 to 1, not "high"\. Correct the underlined value, then save again/,
    );

    // Fixed, and a lifetime as agent.yaml writes it: no diagnostics, and the command saves.
    await replace(doc, 'importance: high', 'importance: 0.5');
    await replace(doc, 'lifetime: forever', 'lifetime: 2m');
    await until('no diagnostics', () => vscode.languages.getDiagnostics(doc.uri).length === 0, { timeoutMs: 10_000 });
    assert.equal(await vscode.commands.executeCommand('agentMemory.saveMemoryDocument'), true);
    await until('saved', () => !doc.isDirty, { timeoutMs: 10_000 });
    const saved = await get(m.id);
    assert.equal(saved.ttlSeconds, 120);
    assert.equal(saved.version, 2);
  });

  test('Promote refuses a permanent memory and makes a short-term one permanent', async () => {
    const permanent = await create('Numbat releases are tagged from the main branch only.');
    assert.equal(await vscode.commands.executeCommand('agentMemory.promoteMemory', permanent.id), undefined);
    const history = await api.engine.request('memory.history', { id: permanent.id });
    assert.ok(!history.some((h) => h.event === 'promoted'), 'nothing recorded');
    const shortTerm = await create('Numbat staging is read-only until the migration ends.', { ttlSeconds: 3600 });
    const promoted = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.promoteMemory', shortTerm.id);
    assert.equal(promoted.expiresAt, null);
    assert.equal((await get(shortTerm.id)).expiresAt, null);
  });

  test('a compare tab takes the restored title and version', async () => {
    // Its own text: the host suites share one store, and editing.test.ts saves the history test's sentence.
    const m = await create('Deploys leave on Wednesdays once the morning standup is over.', { title: 'Deploy day' });
    await api.engine.request('memory.update', { id: m.id, patch: { title: 'Release day', content: 'Releases go out on Thursdays.' } });
    await vscode.commands.executeCommand('agentMemory.openMemory', m.id);
    await vscode.commands.executeCommand('agentMemory.compareVersion', m.id, 1);
    const label = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputTextDiff && new URLSearchParams(t.input.original.query).get('id') === m.id)
        .map((t) => t.label)
        .join(' | ');
    assert.equal(await until('the compare tab', label, { timeoutMs: 10_000 }), 'Release day: Version 1 ↔ Current');
    await vscode.commands.executeCommand('agentMemory.restoreVersion', m.id, 1);
    await until('the compare tab retitled, once', () => label() === 'Deploy day: Version 1 ↔ Current', { timeoutMs: 10_000 });
    assert.equal((await get(m.id)).version, 3);
  });
});
