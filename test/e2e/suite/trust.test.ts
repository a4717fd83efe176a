// The surfaces a new user meets, in the real extension host: Edit moves a memory between the
// project and the global store, "Recall…" answers with the recalled memories (no chat, no
// model), agent.yaml problems are diagnostics at the value's range with override notes, and a
// pipeline mode switch checks Ollama, pulls a missing model (fake Ollama) and saves where asked;
// the Pipeline view says "waiting for Ollama" while Ollama is unreachable.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { suite, suiteSetup, suiteTeardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { InfoNode, PipelineNode } from '../../../src/extension/pipeline/pipelineView';
import type { RecallOutcome } from '../../../src/extension/search/recallCommand';
import type { CreateResult, MemoryRecord, SearchResponse } from '../../../src/engine/protocol';
import { closedPortUrl, FakeOllama } from '../../helpers/fakeOllama';
import { settingIdFor } from '../../../src/extension/config/settingsLayout';
import { activeApi } from './activate';
import { until } from '../../helpers/until';

function created(r: CreateResult | undefined): MemoryRecord {
  assert.ok(r && r.status === 'created', JSON.stringify(r));
  return r.memory;
}

const addMemory = (text: string) => vscode.commands.executeCommand<CreateResult>('agentMemory.addMemory', text);

const PIPELINE_KEYS = ['enabled', 'shadowMode', 'allowUpdateDelete', 'mutationsFrozen', 'ollamaUrl'].map((k) => `memory.pipelineV2.${k}`);

suite('Trust surfaces', () => {
  let api: AgentMemoryApi;
  let fake: FakeOllama | undefined;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const cfg = () => vscode.workspace.getConfiguration('agentMemory');

  suiteSetup(async () => {
    api = await activeApi();
  });

  suiteTeardown(async () => {
    for (const k of [...PIPELINE_KEYS, 'search.vector_weight'].map(settingIdFor)) {
      const i = cfg().inspect(k);
      if (i?.workspaceValue !== undefined) await cfg().update(k, undefined, vscode.ConfigurationTarget.Workspace);
      if (i?.globalValue !== undefined) await cfg().update(k, undefined, vscode.ConfigurationTarget.Global);
    }
    // VS Code delivers one settings event per key, some late; each reloads the engine's
    // configuration. Let them all land here, not in the middle of the next suite's own reloads.
    await until('settings cleared', () => api.engine.currentInit.settings ?? {}, { check: (x) => PIPELINE_KEYS.every((k) => !(k in x)) });
    await new Promise((r) => setTimeout(r, 1500));
    fs.rmSync(path.join(folder(), 'agent.yaml'), { force: true });
    await fake?.close();
  });

  test('Edit can change the scope (the memory moves to the global store) and the lifetime', async () => {
    const m = created(await addMemory('Trust test: I prefer tabs over spaces in every project.'));
    assert.equal(m.scope, 'project');
    const moved = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.editMemory', m.id, { scope: 'global' });
    assert.equal(moved.scope, 'global');
    assert.equal(moved.content, m.content);
    const found = await vscode.commands.executeCommand<SearchResponse>('agentMemory.search', 'tabs over spaces');
    const hits = found.hits.filter((h) => h.content === m.content);
    assert.deepEqual(
      hits.map((h) => [h.memory.id, h.store]),
      [[moved.id, 'global']],
      'found once, in the global store',
    );
    assert.equal(await api.engine.request('memory.get', { id: m.id }), null, 'no longer in the project store');

    const week = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.editMemory', moved.id, { ttlSeconds: 7 * 86_400 });
    const days = (Date.parse(week.expiresAt ?? '') - Date.now()) / 86_400_000;
    assert.ok(days > 6.9 && days <= 7, `expires in 7 days: ${week.expiresAt}`);
    const forever = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.editMemory', moved.id, { ttlSeconds: null });
    assert.equal(forever.expiresAt, null, 'permanent again');
  });

  test('Recall… answers with the recalled memories, without chat or a language model', async () => {
    const m = created(await addMemory('Trust test: the wallaby cache server runs on port 6390.'));
    const r = await vscode.commands.executeCommand<RecallOutcome>('agentMemory.recall', 'which port does the wallaby cache use?');
    assert.equal(r.response.hits[0]?.memory.id, m.id);
    assert.match(r.text, /^# Recall: which port does the wallaby cache use\?\n\nRecalled \d+ memor(y|ies) for your question:/);
    assert.ok(r.text.includes(`1. Trust test: the wallaby cache server runs on port 6390.\n   (general · Open)`), r.text);
    // No address in the text (no id, no percent-encoding): "Open" is a link the editor underlines.
    assert.doesNotMatch(r.text, /agent-memory:|%[0-9A-F]{2}/);
    assert.ok(!r.text.includes(m.id), r.text);
    const recallDoc = await vscode.workspace.openTextDocument(r.uri);
    // (Markdown's own provider may add links found in memory text: only ours open memories.)
    const links = (await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', r.uri)).filter(
      (l) => l.target?.scheme === 'agent-memory',
    );
    assert.equal(links.length, r.response.hits.length, 'one link per recalled memory');
    assert.equal(recallDoc.getText(links[0]!.range), 'Open');
    assert.equal(links[0]!.range.start.line, 5, 'on the first memory\'s "(type · Open)" line');
    const link = links[0]!.target!;
    // The link opens the memory's document; the id is in its query, not its path.
    assert.equal(link.scheme, 'agent-memory');
    assert.equal(new URLSearchParams(link.query).get('id'), m.id);
    const doc = await vscode.workspace.openTextDocument(link);
    assert.match(doc.getText(), /the wallaby cache server runs on port 6390\./);
  });

  test(
    'agent.yaml problems are diagnostics at the value; a setting that overrides a file value is noted there',
    async () => {
      const file = path.join(folder(), 'agent.yaml');
      fs.writeFileSync(file, 'memory:\n  promote_importance: 7\nsearch:\n  vector_weight: 0.5\n');
      const uri = vscode.Uri.file(file);
      const diagnostics = () => vscode.languages.getDiagnostics(uri);
      const errors = await until('a diagnostic', diagnostics, { check: (d) => d.some((x) => x.code === 'memory.promote_importance') });
      const d = errors.find((x) => x.code === 'memory.promote_importance')!;
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(d.source, 'Agent Memory');
      assert.deepEqual([d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], [1, 22, 1, 23]);
      assert.match(d.message, /memory\.promote_importance/);

      await cfg().update('search.vectorWeight', 0.3, vscode.ConfigurationTarget.Workspace);
      const notes = await until('an override note', diagnostics, { check: (x) => x.some((y) => y.code === 'search.vector_weight') });
      const note = notes.find((x) => x.code === 'search.vector_weight')!;
      assert.equal(note.severity, vscode.DiagnosticSeverity.Information);
      assert.equal(note.range.start.line, 3);
      assert.match(note.message, /overridden by the VS Code setting agentMemory\.search\.vectorWeight = 0\.3/);

      fs.writeFileSync(file, 'memory:\n  promote_importance: 0.9\n');
      await cfg().update('search.vectorWeight', undefined, vscode.ConfigurationTarget.Workspace);
      await until('fixed: no diagnostics', diagnostics, { check: (x) => x.length === 0 });
      // Gone again, and the engine has reloaded without it: a late file event would otherwise
      // reload the configuration in the middle of another suite's test.
      fs.rmSync(file);
      const configFile = async () => (await api.engine.request('diagnostics', {})).config.file;
      await until('the engine reloaded without agent.yaml', configFile, { check: (f) => f === undefined });
    },
    { timeoutMs: 40_000 },
  );

  test(
    'a mode switch checks Ollama, pulls the missing model, saves for the user; unreachable Ollama shows as waiting',
    async () => {
      const isWorker = (n: PipelineNode): n is InfoNode => n.kind === 'info' && n.key === 'worker';
      const worker = async () => (await api.views.pipeline.getChildren()).find(isWorker)?.label;
      const llmUrl = async () => (await api.engine.request('pipeline.diagnostics', {})).llm.url;

      fake = await FakeOllama.start({ models: [] });
      await cfg().update('pipeline.ollamaServer', fake.url, vscode.ConfigurationTarget.Workspace);
      await until('the engine uses the fake Ollama', llmUrl, { check: (u) => u === fake!.url });
      const options = { check: true, pull: true, where: 'user' };
      const r = await vscode.commands.executeCommand<{ mode: string }>('agentMemory.switchPipelineMode', 'controlled', options);
      assert.equal(r?.mode, 'controlled');
      assert.equal(fake.count('pull'), 1, 'the missing model was pulled through /api/pull');
      assert.ok(fake.models.has('qwen3:4b'));
      const enabled = cfg().inspect('pipeline.enabled');
      assert.equal(enabled?.globalValue, true, 'saved in the user settings');
      assert.equal(enabled?.workspaceValue, undefined, 'not in the workspace settings');
      assert.equal(await until('worker running', worker, { check: (w) => w === 'Worker: running' }), 'Worker: running');

      const closed = await closedPortUrl();
      await cfg().update('pipeline.ollamaServer', closed, vscode.ConfigurationTarget.Workspace);
      await until('the engine uses the closed port', llmUrl, { check: (u) => u === closed });
      assert.equal(
        await until('worker waiting', worker, { check: (w) => w === 'Worker: waiting for Ollama' }),
        'Worker: waiting for Ollama',
      );

      await vscode.commands.executeCommand('agentMemory.switchPipelineMode', 'off', { where: 'user' });
      assert.equal((await api.engine.request('pipeline.status', {})).mode, 'off');
    },
    { timeoutMs: 60_000 },
  );
});
