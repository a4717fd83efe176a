// Extension-host tests of editable memories and their history (docs/editing.md), in the real
// VS Code: a memory opens as a document named after it, Ctrl+S (TextDocument.save) updates it,
// a wrong field is refused with its name, a change made meanwhile is never overwritten (VS Code's
// own check or the engine's refuses the save; Overwrite or saving again replaces it), changes made elsewhere reach the open
// document, and the history compares and restores versions.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, teardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { MemoryRecord } from '../../../src/engine/protocol';
import { activeApi } from './activate';
import { until } from '../../helpers/until';

let api: AgentMemoryApi;

async function create(content: string, title?: string): Promise<MemoryRecord> {
  const r = await api.engine.request('memory.create', { content, ttlSeconds: null, allowNearDuplicate: true, ...(title ? { title } : {}) });
  assert.equal(r.status, 'created', JSON.stringify(r));
  if (r.status !== 'created') throw new Error('not created');
  return r.memory;
}

async function get(id: string): Promise<MemoryRecord> {
  const m = await api.engine.request('memory.get', { id });
  assert.ok(m, `memory ${id} exists`);
  return m;
}

async function open(id: string): Promise<vscode.TextDocument> {
  await vscode.commands.executeCommand('agentMemory.openMemory', id);
  const doc = vscode.window.activeTextEditor?.document;
  assert.ok(doc && doc.uri.scheme === 'agent-memory', 'a memory document is active');
  return doc;
}

/** Replaces `from` with `to` in the document (an edit as typing makes it: the document becomes dirty). */
async function replace(doc: vscode.TextDocument, from: string | RegExp, to: string): Promise<void> {
  const text = doc.getText();
  const m = typeof from === 'string' ? { index: text.indexOf(from), 0: from } : from.exec(text);
  assert.ok(m && m.index >= 0, `the document contains ${String(from)}:\n${text}`);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(m.index), doc.positionAt(m.index + m[0].length)), to);
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.ok(doc.isDirty);
}

/** A query parameter of a memory document's URI (`id`, `version`, `conflict`), null when absent. */
const param = (u: vscode.Uri, name: string) => new URLSearchParams(u.query).get(name);

const diffTabs = () =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).flatMap((t) => (t.input instanceof vscode.TabInputTextDiff ? [t.input] : []));

suite('Editing memories', () => {
  suiteSetup(async () => {
    api = await activeApi();
  });
  teardown(async () => {
    // Revert what a test left unsaved, so closing never asks.
    for (const d of vscode.workspace.textDocuments.filter((x) => x.isDirty && x.uri.scheme === 'agent-memory')) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a memory opens as an editable document named after it; saving sends one update with the changed fields', async () => {
    const m = await create('Use pnpm, not npm, in this repository: the lock file is pnpm-lock.yaml.', 'Use pnpm, not npm.');
    const doc = await open(m.id);
    assert.ok(doc.uri.path.endsWith('/Use pnpm, not npm.md'), doc.uri.path);
    assert.equal(doc.languageId, 'agent-memory');
    assert.match(doc.getText(), /^---\n# Version 1 · /);
    assert.match(
      doc.getText(),
      /\ntitle: Use pnpm, not npm\.\ntype: general\ntags: \[\]\nimportance: 0\.5\nscope: project\nlifetime: permanent\n---\n\nUse pnpm/,
    );

    await replace(doc, 'the lock file is pnpm-lock.yaml.', 'the lock file is pnpm-lock.yaml; CI runs pnpm i --frozen-lockfile.');
    await replace(doc, 'tags: []', 'tags: [tooling, node]');
    assert.equal(await doc.save(), true);
    assert.equal(doc.isDirty, false);
    const saved = await get(m.id);
    assert.equal(saved.version, 2, 'one update');
    assert.equal(
      saved.content,
      'Use pnpm, not npm, in this repository: the lock file is pnpm-lock.yaml; CI runs pnpm i --frozen-lockfile.',
    );
    assert.deepEqual(saved.tags, ['tooling', 'node']);
    const h = (await api.engine.request('memory.history', { id: m.id })).at(-1)!;
    assert.equal(h.event, 'updated');
    assert.deepEqual(((h.metadata.changed as string[]) ?? []).filter((k) => ['content', 'tags', 'title'].includes(k)).sort(), [
      'content',
      'tags',
    ]);
  });

  test('line breaks typed into a memory document survive the save and come back when it is opened again', async () => {
    const m = await create('Release steps for the mobile app, in the order the release captain follows them.', 'Release steps');
    const doc = await open(m.id);
    await replace(
      doc,
      'in the order the release captain follows them.',
      'in order:\n\n- bump the version\n- tag the build\n- publish the notes',
    );
    assert.equal(await doc.save(), true);
    const saved = await get(m.id);
    // Stored on one line (hashed, indexed, compared), kept as written beside it.
    assert.equal(saved.content, 'Release steps for the mobile app, in order: - bump the version - tag the build - publish the notes');
    assert.equal(
      saved.metadata.markdown,
      'Release steps for the mobile app, in order:\n\n- bump the version\n- tag the build\n- publish the notes',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const again = await open(m.id);
    assert.match(
      again.getText(),
      /---\n\nRelease steps for the mobile app, in order:\n\n- bump the version\n- tag the build\n- publish the notes\n?$/,
    );
    // The history shows version 2 as written, too.
    const versions = await api.engine.request('memory.versions', { id: m.id });
    assert.match(versions.at(-1)!.content, /in order:\n\n- bump the version\n/);
  });

  test('a wrong field is not saved and the error names it', async () => {
    const m = await create('Staging listens on port 5433 since the March migration.');
    const doc = await open(m.id);
    await replace(doc, 'importance: 0.5', 'importance: high');
    assert.equal(await doc.save(), false, 'the save failed');
    assert.equal((await get(m.id)).version, 1, 'nothing written');
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(doc.getText()))),
      /importance: must be a number from 0 to 1, not "high"/,
    );
    await assert.rejects(
      Promise.resolve(
        vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(doc.getText().replace('importance: high', 'colour: blue'))),
      ),
      /colour: is not a field of a memory/,
    );
    // Oversized text: the engine's sentence, nothing written.
    const huge = doc.getText().replace('importance: high', 'importance: 0.5') + 'x'.repeat(70 * 1024);
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(huge))),
      /Not saved: .*the limit is 65536\. Split it, or ingest it as a document/,
    );
    assert.equal((await get(m.id)).version, 1, 'nothing written');
  });

  test("a change made meanwhile that changes the document's size: VS Code's own save check refuses the save; Overwrite replaces it", async () => {
    const m = await create('Releases are cut on Mondays by the release captain.');
    const doc = await open(m.id);
    await replace(doc, 'on Mondays', 'on Tuesdays');
    // Meanwhile an agent changes the memory (version 2: the header gains "updated", the size changes).
    await api.engine.request('memory.update', {
      id: m.id,
      patch: { content: 'Releases are cut on Wednesdays by the release captain.', who: 'agent' },
    });

    assert.equal(await doc.save(), false, 'the save is refused');
    assert.equal((await get(m.id)).content, 'Releases are cut on Wednesdays by the release captain.', 'the other change is kept');
    assert.equal(diffTabs().length, 0, "VS Code's notification offers Compare; no compare view opens by itself");

    // "Overwrite" saves without VS Code's check: a write over the newer version, on purpose.
    await vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(doc.getText()));
    const after = await get(m.id);
    assert.equal(after.content, 'Releases are cut on Tuesdays by the release captain.');
    assert.equal(after.version, 3);
  });

  test('a change made meanwhile that keeps the size: the engine refuses the save, a compare view opens, saving again overwrites', async () => {
    const m = await create('Hotfixes are cut on Mondays by the on-call engineer.');
    await api.engine.request('memory.update', { id: m.id, patch: { content: 'Hotfixes are cut on Mondays by the release team.' } });
    const doc = await open(m.id);
    await replace(doc, 'on Mondays', 'on Sundays');
    // Meanwhile an agent makes a change of the same length (version 2 → 3, the same day: the same size).
    await api.engine.request('memory.update', {
      id: m.id,
      patch: { content: 'Hotfixes are cut on Fridays by the release team.', who: 'agent' },
    });

    assert.equal(await doc.save(), false, 'the save is refused');
    assert.equal((await get(m.id)).content, 'Hotfixes are cut on Fridays by the release team.', 'the other change is kept');
    const diff = await until(
      'the compare view',
      () => diffTabs().find((d) => param(d.original, 'version') === '3' && param(d.modified, 'conflict') !== null),
      { timeoutMs: 10_000 },
    );
    const stored = await vscode.workspace.openTextDocument(diff.original);
    const mine = await vscode.workspace.openTextDocument(diff.modified);
    assert.match(stored.getText(), /on Fridays/);
    assert.match(mine.getText(), /on Sundays/);

    // Saving again (the notification's Retry) replaces the stored memory on purpose.
    await vscode.window.showTextDocument(doc);
    assert.equal(await doc.save(), true);
    const after = await get(m.id);
    assert.equal(after.content, 'Hotfixes are cut on Sundays by the release team.');
    assert.equal(after.version, 4);
  });

  test('changes made elsewhere reach the open document; a deleted memory cannot be saved over', async () => {
    const m = await create('The cache lives in /var/cache/app on the build hosts.');
    const doc = await open(m.id);
    await api.engine.request('memory.update', { id: m.id, patch: { title: 'Build cache' } });
    await until('the document to reload', () => doc.getText().includes('title: Build cache'), { timeoutMs: 10_000 });
    assert.equal(doc.isDirty, false);

    await replace(doc, '/var/cache/app', '/srv/cache');
    await api.engine.request('memory.delete', { id: m.id });
    assert.equal(await doc.save(), false);
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(doc.getText()))),
      /deleted meanwhile, so your text is not saved/,
    );
  });

  test('history: compare an old version with the current one, restore it as a new version', async () => {
    const m = await create('Deploys go out on Tuesdays after the standup.', 'Deploy day');
    await api.engine.request('memory.update', { id: m.id, patch: { content: 'Deploys go out on Thursdays, never on Fridays.' } });
    await api.engine.request('memory.update', { id: m.id, patch: { tags: ['ops'] } });
    const doc = await open(m.id);

    await vscode.commands.executeCommand('agentMemory.compareVersion', m.id, 1);
    const diff = await until(
      'the compare view',
      () =>
        diffTabs().find(
          (d) => param(d.original, 'version') === '1' && param(d.modified, 'version') === null && param(d.modified, 'conflict') === null,
        ),
      { timeoutMs: 10_000 },
    );
    const old = await vscode.workspace.openTextDocument(diff.original);
    assert.match(old.getText(), /# Version 1 · [\s\S]*Deploys go out on Tuesdays after the standup\./);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(diff.original, new TextEncoder().encode('x'))), /read-only/);

    const restored = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.restoreVersion', m.id, 1);
    assert.equal(restored.version, 4);
    assert.equal(restored.content, 'Deploys go out on Tuesdays after the standup.');
    assert.deepEqual(restored.tags, []);
    const versions = await api.engine.request('memory.versions', { id: m.id });
    assert.deepEqual(
      versions.map((v) => v.version),
      [1, 2, 3, 4],
    );
    assert.equal(versions.at(-1)!.reason, 'restored version 1');
    await until('the open document to show the restored text', () => doc.getText().includes('Deploys go out on Tuesdays'), {
      timeoutMs: 10_000,
    });
  });
});
