// Extension-host tests of the API surface, in the real VS Code: the engine worker behind the
// commands, the memory tree's data, the @memory chat handler (no language model on
// code-server), and the language-model tools.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { TreeNode } from '../../../src/extension/memories/memoryTree';
import type { CreateResult, MemoryRecord, SearchResponse, SecretScanReport } from '../../../src/engine/protocol';
import { activeApi, EXTENSION_ID } from './activate';

function created(r: CreateResult | undefined): MemoryRecord {
  assert.ok(r, 'the command returned a result');
  assert.equal(r.status, 'created', JSON.stringify(r));
  if (r.status !== 'created') throw new Error('not created');
  return r.memory;
}

/** A ChatResponseStream stand-in that records what the participant writes. */
function recordingStream() {
  const parts: string[] = [];
  const buttons: vscode.Command[] = [];
  return {
    parts,
    buttons,
    // MarkdownString.appendText escapes markdown (spaces become &nbsp;): compare the plain text.
    text: () =>
      parts
        .join('')
        .replace(/&nbsp;/g, ' ')
        .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1'),
    stream: {
      markdown: (v: string | vscode.MarkdownString) => {
        parts.push(typeof v === 'string' ? v : v.value);
      },
      progress: (_v: string) => undefined,
      button: (c: vscode.Command) => {
        buttons.push(c);
      },
    },
  };
}

const noToken: vscode.CancellationToken = new vscode.CancellationTokenSource().token;
const chatContext = { history: [] } as unknown as vscode.ChatContext;

suite('Surfaces', () => {
  let api: AgentMemoryApi;

  suiteSetup(async () => {
    api = await activeApi();
  });

  test('the engine runs in a worker thread and every contributed command is registered', async () => {
    assert.equal(api.engine.state, 'ready');
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: { command: string }[] } };
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = pkg.contributes.commands.map((c) => c.command).filter((c) => !all.has(c));
    assert.deepEqual(missing, []);
    const d = await vscode.commands.executeCommand<{
      engine?: { projectId: string; stats: { project: { readOnly: boolean } } };
      activationMs: number;
    }>('agentMemory.showDiagnostics');
    assert.equal(d.engine?.projectId, 'github.com/example-org/sample-project', "project id from the sample workspace's git remote");
    assert.equal(d.engine?.stats.project.readOnly, false);
    assert.ok(d.activationMs > 0);
  });

  test('add memory (command with text) → it is in the tree under its type, searchable, promotable, editable, deletable', async () => {
    const m = created(
      await vscode.commands.executeCommand<CreateResult>(
        'agentMemory.addMemory',
        'The e2e staging cluster is called kestrel-7 and lives in eu-west-3.',
      ),
    );
    const roots = await api.tree.getChildren();
    const general = roots.find((n): n is Extract<TreeNode, { kind: 'type' }> => n.kind === 'type' && n.type === 'general');
    assert.ok(general && general.count >= 1, 'a "general" group with a count');
    assert.equal(api.tree.getTreeItem(general).label, 'General', 'the group heading is a word, not the type id');
    const items = await api.tree.getChildren(general);
    const node = items.find((n) => n.kind === 'memory' && n.memory.id === m.id);
    assert.ok(node, 'the memory is listed in its group');
    const item = api.tree.getTreeItem(node);
    assert.equal(item.command?.command, 'agentMemory.openMemory');
    assert.equal(item.contextValue, 'memory.permanent', 'a memory added on purpose is permanent (docs/lifecycle.md): no Promote offered');

    const found = await vscode.commands.executeCommand<SearchResponse>('agentMemory.search', 'kestrel staging cluster');
    assert.equal(found.hits[0]?.memory.id, m.id);

    // Already permanent: Promote says so and changes nothing (memoryUx.test.ts promotes a short-term one).
    assert.equal(await vscode.commands.executeCommand<MemoryRecord | undefined>('agentMemory.promoteMemory', m.id), undefined);
    assert.equal((await api.engine.request('memory.get', { id: m.id }))?.expiresAt, null);
    const edited = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.editMemory', m.id, { title: 'Staging cluster' });
    assert.equal(edited.title, 'Staging cluster');
    const opened = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.openMemory', m.id);
    assert.equal(opened.id, m.id);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.scheme, 'agent-memory');
    assert.match(doc!.getText(), /kestrel-7/);

    await vscode.commands.executeCommand('agentMemory.deleteMemory', m.id, { confirm: false });
    const after = await vscode.commands.executeCommand<SearchResponse>('agentMemory.search', 'kestrel staging cluster');
    assert.ok(!after.hits.some((h) => h.memory.id === m.id), 'a deleted memory is found by neither leg');
  });

  test('secret guard: a token in Add Memory is redacted and said so; Scan Memories for Secrets then finds none', async () => {
    // Built from pieces so secret scanners of this repository do not report the fixture.
    const token = ['ghp_', 'R7tK2mQ9', 'xV4bN8cL', '1zW6pH3s', 'J5dF0gY2', 'aE7u'].join('');
    const r = await vscode.commands.executeCommand<CreateResult>(
      'agentMemory.addMemory',
      `The e2e release bot pushes tags with the token ${token} every Friday.`,
    );
    const m = created(r);
    assert.equal(m.content, 'The e2e release bot pushes tags with the token [redacted: GitHub token] every Friday.');
    assert.deepEqual(r?.status === 'created' ? r.redacted : undefined, ['github_token']);
    const scan = await vscode.commands.executeCommand<SecretScanReport>('agentMemory.scanSecrets', { redact: true });
    assert.equal(scan.redact, false, 'nothing found, so nothing redacted');
    assert.deepEqual(
      scan.stores.map((s) => s.kinds),
      [{}, {}],
    );
    await vscode.commands.executeCommand('agentMemory.deleteMemory', m.id, { confirm: false });
  });

  test('export and import JSON through the commands', async () => {
    created(
      await vscode.commands.executeCommand<CreateResult>(
        'agentMemory.addMemory',
        'Exported memories keep their tags and their type across machines.',
      ),
    );
    const dir = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.e2e-tmp');
    await vscode.workspace.fs.createDirectory(dir);
    const file = vscode.Uri.joinPath(dir, 'export.json').fsPath;
    const exported = await vscode.commands.executeCommand<{ count: number }>('agentMemory.exportJson', file);
    assert.ok(exported.count >= 1);
    const imported = await vscode.commands.executeCommand<{ total: number; created: number; duplicates: number }>(
      'agentMemory.importJson',
      file,
    );
    assert.equal(imported.total, exported.count);
    assert.equal(imported.created, 0, 'everything is already there');
    assert.equal(imported.duplicates, exported.count);
  });

  test('@memory without a language model answers with the recalled memories; /remember and /forget work', async () => {
    const models = await vscode.lm.selectChatModels();
    const model = models[0];
    const remember = recordingStream();
    const saved = await api.chatHandler(
      { prompt: 'The billing service retries webhooks 5 times with exponential backoff.', command: 'remember' },
      chatContext,
      remember.stream,
      noToken,
    );
    assert.match(remember.text(), /Memory saved/);
    assert.equal(saved.metadata.recalled.length, 1);

    const ask = recordingStream();
    const answer = await api.chatHandler(
      { prompt: 'how often are billing webhooks retried?', command: undefined, ...(model ? { model } : {}) },
      chatContext,
      ask.stream,
      noToken,
    );
    assert.equal(answer.metadata.recalled[0], saved.metadata.recalled[0], 'the saved memory is recalled first');
    if (!answer.metadata.usedModel) assert.match(ask.text(), /retries webhooks 5 times/, 'the memory itself is the answer');

    const forget = recordingStream();
    const gone = await api.chatHandler({ prompt: saved.metadata.recalled[0]!, command: 'forget' }, chatContext, forget.stream, noToken);
    assert.match(forget.text(), /Forgot/);
    assert.deepEqual(gone.metadata.recalled, saved.metadata.recalled);
    const again = recordingStream();
    const after = await api.chatHandler({ prompt: 'billing webhooks retried', command: undefined }, chatContext, again.stream, noToken);
    assert.ok(!after.metadata.recalled.includes(saved.metadata.recalled[0]!), 'a forgotten memory is not recalled');
    assert.doesNotMatch(again.text(), /retries webhooks 5 times/);
  });

  test('recalled text pasted into /remember is saved as recall (never re-learned)', async () => {
    const first = created(
      await vscode.commands.executeCommand<CreateResult>(
        'agentMemory.addMemory',
        'Feature branches are squashed when they are merged into main.',
      ),
    );
    const ask = recordingStream();
    await api.chatHandler({ prompt: 'how are feature branches merged?', command: undefined }, chatContext, ask.stream, noToken);
    const block = `<agent-memory-recall>\nFeature branches get squashed on merge; the PR title becomes the commit message.\n</agent-memory-recall>`;
    const r = recordingStream();
    const res = await api.chatHandler({ prompt: block, command: 'remember' }, chatContext, r.stream, noToken);
    const id = res.metadata.recalled[0]!;
    const rec = await api.engine.request('memory.get', { id });
    assert.ok(rec && id !== first.id);
    assert.equal(rec.pipelineStatus, 'complete', 'no extraction job for recalled text');
    assert.doesNotMatch(rec.content, /agent-memory-recall/, 'markers are not stored');
  });

  test('language-model tools are registered and the search tool answers through vscode.lm.invokeTool', async () => {
    const names = vscode.lm.tools.map((t) => t.name);
    assert.ok(names.includes('agentMemory_search') && names.includes('agentMemory_save'), `tools: ${names.join(', ')}`);
    created(
      await vscode.commands.executeCommand<CreateResult>(
        'agentMemory.addMemory',
        'Lint runs with eslint flat config and the strict TypeScript preset.',
      ),
    );
    const result = await vscode.lm.invokeTool(
      'agentMemory_search',
      { input: { query: 'eslint flat config' }, toolInvocationToken: undefined },
      noToken,
    );
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /<agent-memory-recall>[\s\S]*eslint flat config[\s\S]*<\/agent-memory-recall>/);
    const bad = await vscode.lm.invokeTool('agentMemory_search', { input: { query: '' }, toolInvocationToken: undefined }, noToken);
    assert.match(bad.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''), /must be a non-empty string/);
  });

  test(
    'a crash of the engine thread is survived: the tree and search keep working after the restart',
    async () => {
      const m = created(
        await vscode.commands.executeCommand<CreateResult>(
          'agentMemory.addMemory',
          'Crash test: the on-call rota lives in the ops wiki under /rota.',
        ),
      );
      await api.engine.request('debug.crash', { how: 'exit' }).catch((e: { code?: string }) => assert.equal(e.code, 'engine_crashed'));
      const found = await vscode.commands.executeCommand<SearchResponse>('agentMemory.search', 'on-call rota wiki');
      assert.equal(found.hits[0]?.memory.id, m.id, 'the write before the crash survived; the search waited for the restart');
      assert.equal(api.engine.state, 'ready');
      assert.equal(api.engine.restarts, 1);
    },
    { timeoutMs: 30_000 },
  );
});
