// Extension-host tests of the Suggestions and Pipeline views and their commands, in the real
// VS Code: the views' tree data, accept/reject of suggestions, pause/resume and mode switching
// (written to the workspace settings), full-mode proposals from a fake Ollama on 127.0.0.1
// shown as review items and approved through the command, undo, file ingest, the store folder.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { suite, suiteSetup, suiteTeardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { InfoNode, PipelineNode } from '../../../src/extension/pipeline/pipelineView';
import type { SuggestionNode } from '../../../src/extension/suggestions/suggestionsView';
import type { CreateMemoryResult, DocumentIngestResult, MemoryRecord, PipelineStatus, Suggestion } from '../../../src/engine/protocol';
import { FakeOllama } from '../../helpers/fakeOllama';
import { settingIdFor } from '../../../src/extension/config/settingsLayout';
import { activeApi } from './activate';
import { until } from '../../helpers/until';

const MODE_KEYS = ['enabled', 'shadowMode', 'allowUpdateDelete', 'mutationsFrozen'].map((k) => `memory.pipelineV2.${k}`);

function labelText(label: string | vscode.TreeItemLabel | undefined): string {
  return typeof label === 'string' ? label : (label?.label ?? '');
}

function info(nodes: PipelineNode[], key: string): InfoNode {
  const n = nodes.find((x): x is InfoNode => x.kind === 'info' && x.key === key);
  assert.ok(n, `pipeline view item ${key}: ${JSON.stringify(nodes.map((x) => (x.kind === 'info' ? x.key : x.review.id)))}`);
  return n;
}

suite('Sidebar views', () => {
  let api: AgentMemoryApi;
  let baseSettings: Record<string, unknown>;
  let fake: FakeOllama | undefined;
  const create = async (content: string): Promise<MemoryRecord> => {
    const r = await api.engine.request('memory.create', { content, allowNearDuplicate: true });
    assert.equal(r.status, 'created', JSON.stringify(r));
    return (r as Extract<CreateMemoryResult, { status: 'created' }>).memory;
  };
  const reload = (extra: Record<string, unknown>) => api.engine.request('config.reload', { settings: { ...baseSettings, ...extra } });

  suiteSetup(async () => {
    api = await activeApi();
    baseSettings = { ...(api.engine.currentInit.settings ?? {}) };
  });

  suiteTeardown(async () => {
    const cfg = vscode.workspace.getConfiguration('agentMemory');
    for (const k of MODE_KEYS.map(settingIdFor)) await cfg.update(k, undefined, vscode.ConfigurationTarget.Workspace);
    if ((await api.engine.request('pipeline.status', {})).paused) await vscode.commands.executeCommand('agentMemory.resumePipeline');
    await api.engine.request('config.reload', { settings: baseSettings });
    await fake?.close();
  });

  test(
    'Suggestions view lists pending pairs with both memories; reject and accept from the commands',
    async () => {
      // Every similar pair becomes a suggestion at write time (nothing auto-merges).
      await reload({ 'memory.similarity_threshold': 0.3, 'memory.auto_merge_threshold': 1 });
      const a = await create('The nightly backup of the orders database runs at 02:00 UTC to the cold bucket.');
      const b = await create('Backups of the orders database run nightly at 02:00 UTC into the cold storage bucket.');
      const pairOf = (s: Suggestion) => [s.a.id, s.b.id].sort().join();
      const want = [a.id, b.id].sort().join();
      const roots = await api.views.suggestions.getChildren();
      const node = roots.find(
        (n): n is Extract<SuggestionNode, { kind: 'suggestion' }> => n.kind === 'suggestion' && pairOf(n.suggestion) === want,
      );
      assert.ok(
        node,
        `the pair is listed: ${JSON.stringify(api.views.suggestions.last.map((s) => [s.a.preview, s.b.preview, s.similarity]))}`,
      );
      const item = api.views.suggestions.getTreeItem(node);
      // The similarity leads the label (a description is cut off at the default sidebar width).
      assert.match(labelText(item.label), /^\d+% similar · .*(nightly backup|Backups of the orders)/);
      assert.equal(item.contextValue, 'suggestion');
      const sides = await api.views.suggestions.getChildren(node);
      assert.deepEqual(
        sides.map((s) => (s.kind === 'side' ? s.side : '?')),
        ['A', 'B'],
      );
      const sideItem = api.views.suggestions.getTreeItem(sides[0]!);
      assert.equal(sideItem.command?.command, 'agentMemory.openMemory');
      assert.deepEqual(sideItem.command?.arguments, [node.suggestion.a.id]);

      const listed = await vscode.commands.executeCommand<Suggestion[]>('agentMemory.showSuggestions');
      assert.ok(listed.some((s) => s.id === node.suggestion.id));
      assert.deepEqual(await vscode.commands.executeCommand('agentMemory.rejectSuggestion', node), { id: node.suggestion.id });
      assert.ok(
        !(await api.views.suggestions.getChildren()).some((n) => n.kind === 'suggestion' && n.suggestion.id === node.suggestion.id),
        'gone after reject',
      );

      const c = await create('Feature branches are deleted automatically after their pull request is merged.');
      const d = await create('After a pull request is merged its feature branch is deleted automatically.');
      const s2 = (await api.engine.request('suggestions.list', {})).find((s) => pairOf(s) === [c.id, d.id].sort().join());
      assert.ok(s2, 'second pair suggested');
      const merged = await vscode.commands.executeCommand<MemoryRecord>('agentMemory.acceptSuggestion', s2.id, { preview: false });
      assert.equal(merged.id, s2.a.id, 'A survives');
      assert.equal(await api.engine.request('memory.get', { id: s2.b.id }), null, 'B merged away');
      // What the "Merged" notification's Undo does: both memories back, the pair suggested again.
      await api.engine.request('suggestions.undo', { id: s2.id });
      const contentOf = (id: string) => [c, d].find((m) => m.id === id)!.content;
      assert.equal((await api.engine.request('memory.get', { id: s2.b.id }))?.content, contentOf(s2.b.id));
      assert.equal((await api.engine.request('memory.get', { id: s2.a.id }))?.content, contentOf(s2.a.id));
      assert.ok((await api.views.suggestions.getChildren()).some((n) => n.kind === 'suggestion' && n.suggestion.id === s2.id));
      await reload({});
    },
    { timeoutMs: 30_000 },
  );

  test(
    'Suggestions view: what a duplicate scan found is listed as soon as the scan ends, without Refresh',
    async () => {
      // No suggestion at write time (the threshold at the top); the scan finds the pair at a low one.
      await reload({ 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 });
      const a = await create('The staging database is refreshed from a production snapshot every Sunday night.');
      const b = await create('Every Sunday night the staging database gets refreshed from a snapshot of production.');
      await reload({ 'memory.similarity_threshold': 0.3, 'memory.auto_merge_threshold': 1 });
      // The view has handled the events of those writes (its debounce is 150 ms).
      await new Promise((r) => setTimeout(r, 1000));
      const want = [a.id, b.id].sort().join();
      const pairOf = (s: Suggestion) => [s.a.id, s.b.id].sort().join();
      assert.ok(!(await api.engine.request('suggestions.list', {})).some((s) => pairOf(s) === want), 'not suggested at write time');
      let changedAt: number | undefined;
      const sub = api.views.suggestions.onDidChangeTreeData(() => (changedAt ??= Date.now()));
      try {
        // As "Scan for Duplicate Memories" (or the hourly scan, or another window) asks the engine.
        const found = await api.engine.request('suggestions.scan', {});
        const scanned = Date.now();
        assert.ok(found.created >= 1, JSON.stringify(found));
        await until('the Suggestions view refreshes by itself', () => changedAt !== undefined, { timeoutMs: 3000 });
        console.log(`      the view refreshed ${changedAt! - scanned} ms after the scan answered`);
        const roots = await api.views.suggestions.getChildren();
        const node = roots.find((n) => n.kind === 'suggestion' && pairOf(n.suggestion) === want);
        assert.ok(node && node.kind === 'suggestion', 'the pair the scan found is listed');
        await api.engine.request('suggestions.reject', { id: node.suggestion.id });
      } finally {
        sub.dispose();
        await reload({});
      }
    },
    { timeoutMs: 30_000 },
  );

  test(
    'Suggestions view: a memory change that changes no row does not refresh it (an inline click in flight keeps its row)',
    async () => {
      await reload({ 'memory.similarity_threshold': 0.99, 'memory.auto_merge_threshold': 1 }); // the write suggests nothing
      await new Promise((r) => setTimeout(r, 1000)); // the view has handled the reload's events
      await api.views.suggestions.getChildren(); // the rows shown
      const checksBefore = api.views.suggestions.rows.checks;
      let fired = 0;
      const sub = api.views.suggestions.onDidChangeTreeData(() => fired++);
      try {
        const m = await create('The release checklist lives in docs/release.md and is read before every tag.');
        await until('the view has checked its rows after the write', () => api.views.suggestions.rows.checks > checksBefore, {
          timeoutMs: 5000,
        });
        await new Promise((r) => setTimeout(r, 500)); // any later event of the write too (the debounce is 150 ms)
        assert.equal(fired, 0, 'same rows: no refresh');
        await api.engine.request('memory.delete', { id: m.id });
      } finally {
        sub.dispose();
        await reload({});
      }
    },
    { timeoutMs: 30_000 },
  );

  test(
    'Recently Deleted view: a write that removes nothing does not refresh it; a delete does, with the row',
    async () => {
      await api.removed.getChildren(); // the rows shown
      let fired = 0;
      const sub = api.removed.onDidChangeTreeData(() => fired++);
      try {
        const checks = api.removed.rows.checks;
        const m = await create('The staging cluster is rebuilt from Terraform every Friday afternoon.');
        await until('the view has checked its rows after the write', () => api.removed.rows.checks > checks, { timeoutMs: 5000 });
        await new Promise((r) => setTimeout(r, 500)); // any later event of the write too (the debounce is 200 ms)
        assert.equal(fired, 0, 'same rows: no refresh');
        await api.engine.request('memory.delete', { id: m.id });
        await until('the delete refreshes the view', () => fired > 0, { timeoutMs: 5000 });
        const rows = await api.removed.getChildren();
        assert.ok(
          rows.some((n) => n.kind === 'removed' && n.item.memory.id === m.id),
          'the deleted memory is listed',
        );
      } finally {
        sub.dispose();
      }
    },
    { timeoutMs: 30_000 },
  );

  test(
    'Pipeline view: project, mode, worker, queue, reviews, embedder, LLM, health; pause/resume and mode switch',
    async () => {
      const roots = await api.views.pipeline.getChildren();
      const project = info(roots, 'project');
      assert.equal(project.description, 'example-org/sample-project', 'the id without its host (cut at the default width otherwise)');
      assert.match(String(project.tooltip), /github\.com\/example-org\/sample-project/);
      assert.match(project.label, /^Project: /);
      assert.equal(info(roots, 'mode').label, 'Mode: off');
      assert.equal(info(roots, 'worker').label, 'Worker: off');
      assert.match(info(roots, 'queue').description ?? '', /^\d+ pending( · \d+ failed)?$/);
      assert.match(String(info(roots, 'queue').tooltip), /^\d+ pending · \d+ running · \d+ failed · \d+ completed$/);
      assert.equal(info(roots, 'reviews').description, '0');
      assert.match(info(roots, 'embedder').label, /^Embedder: /);
      assert.match(info(roots, 'llm').label, /^LLM: /);
      assert.match(info(roots, 'llm').description ?? '', /Ollama not reachable|ready|not installed/);
      assert.match(info(roots, 'health').description ?? '', /^\d+%$/);
      assert.equal(info(roots, 'health').children?.length, 4);

      const r = await vscode.commands.executeCommand<{ mode: string; status: PipelineStatus }>('agentMemory.switchPipelineMode', 'shadow');
      assert.equal(r.status.mode, 'shadow');
      const cfg = vscode.workspace.getConfiguration('agentMemory');
      assert.equal(cfg.inspect('pipeline.enabled')?.workspaceValue, true, 'written to the workspace settings');
      assert.equal(cfg.inspect('pipeline.shadowMode')?.workspaceValue, true);
      assert.equal(info(await api.views.pipeline.getChildren(), 'mode').label, 'Mode: shadow');
      // VS Code delivers one settings event per written key, some after the command returned:
      // none of them may re-apply an in-between state (enabled without shadowMode = controlled).
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await api.engine.request('pipeline.status', {})).mode, 'shadow', 'still shadow once every settings event has arrived');
      assert.equal(
        api.engine.currentInit.settings?.['memory.pipelineV2.shadowMode'],
        true,
        'a crash restart would start in shadow mode too',
      );

      const paused = await vscode.commands.executeCommand<PipelineStatus>('agentMemory.pausePipeline');
      assert.equal(paused.paused, true);
      assert.equal(api.engine.currentInit.pipelinePaused, true, 'the next engine start is paused too');
      const worker = info(await api.views.pipeline.getChildren(), 'worker');
      assert.equal(worker.label, 'Worker: paused');
      assert.equal(worker.contextValue, 'pipelineWorker.paused');
      const resumed = await vscode.commands.executeCommand<PipelineStatus>('agentMemory.resumePipeline');
      assert.equal(resumed.paused, false);
      assert.equal((await api.engine.request('pipeline.status', {})).paused, false);

      await vscode.commands.executeCommand('agentMemory.switchPipelineMode', 'off');
      assert.equal((await api.engine.request('pipeline.status', {})).mode, 'off');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await api.engine.request('pipeline.status', {})).mode, 'off', 'still off once every settings event has arrived');
      const bad = await vscode.commands.executeCommand('agentMemory.switchPipelineMode', 'turbo');
      assert.equal(bad, undefined, 'refused (an error notification), nothing changed');
      assert.equal((await api.engine.request('pipeline.status', {})).mode, 'off');
    },
    { timeoutMs: 30_000 },
  );

  test(
    'full-mode proposals from the (fake) LLM show as review items; approve via the command; undo',
    async () => {
      fake = await FakeOllama.start({ models: ['qwen3:4b'] });
      await api.engine.request('pipeline.pause', {});
      await reload({
        'memory.pipelineV2.enabled': true,
        'memory.pipelineV2.allowUpdateDelete': true,
        'memory.pipelineV2.ollamaUrl': fake.url,
        'memory.pipelineV2.workerPollMs': 100,
        'memory.auto_merge_threshold': 1,
      });
      const target = await create('The CI pipeline for the mobile app lives in Bitrise today.');
      const src = await create('Mobile notes: the CI pipeline moved off Bitrise last sprint.');
      fake.enqueue(
        'generate',
        { reply: JSON.stringify({ facts: [], entities: [] }) },
        {
          reply: JSON.stringify({
            facts: [{ content: 'The CI pipeline for the mobile app no longer lives in Bitrise today.', type: 'fact', confidence: 0.9 }],
            entities: [],
          }),
        },
        { reply: JSON.stringify({ action: 'DELETE', targetId: target.id, confidence: 0.9, reason: 'CI moved elsewhere.' }) },
      );
      await vscode.commands.executeCommand('agentMemory.resumePipeline');
      await until('a review for the target', () => api.engine.request('reviews.list', {}), {
        check: (l) => l.some((r) => r.targetId === target.id),
      });
      assert.ok(src.id);

      const roots = await until('review items', () => api.views.pipeline.getChildren(), {
        check: (n) => (info(n, 'reviews').children?.length ?? 0) >= 1,
      });
      const reviews = info(roots, 'reviews');
      const node = reviews.children!.find(
        (n): n is Extract<PipelineNode, { kind: 'review' }> => n.kind === 'review' && n.review.targetId === target.id,
      )!;
      const item = api.views.pipeline.getTreeItem(node);
      assert.equal(item.contextValue, 'pipelineReview');
      assert.match(labelText(item.label), /^Delete: The CI pipeline for the mobile app lives in Bitrise/);
      assert.equal(info(roots, 'llm').description, 'ready', 'the fake Ollama is reachable and has the model');
      assert.equal(info(roots, 'mode').label, 'Mode: full');

      // Both views redraw after the decision (the Memories tree on the engine's change event).
      let memoriesRedrawn = 0;
      let pipelineRedrawn = 0;
      const watching = [
        api.tree.onDidChangeTreeData(() => memoriesRedrawn++),
        api.views.pipeline.onDidChangeTreeData(() => pipelineRedrawn++),
      ];
      const approved = await vscode.commands.executeCommand<{ status: string; historyId: string }>('agentMemory.approveReview', node);
      assert.equal(approved.status, 'deleted');
      assert.equal(await api.engine.request('memory.get', { id: target.id }), null);
      await until('the Memories and Pipeline views redrawn after Approve', async () => ({ memoriesRedrawn, pipelineRedrawn }), {
        check: (n: { memoriesRedrawn: number; pipelineRedrawn: number }) => n.memoriesRedrawn > 0 && n.pipelineRedrawn > 0,
        timeoutMs: 5000,
      });
      const left = info(await api.views.pipeline.getChildren(), 'reviews').children ?? [];
      assert.ok(
        !left.some((n: PipelineNode) => n.kind === 'review' && n.review.targetId === target.id),
        'the approved proposal left the view',
      );
      for (const w of watching) w.dispose();
      const undone = await vscode.commands.executeCommand<{ undone: string; memory: MemoryRecord }>(
        'agentMemory.undoPipelineChange',
        approved.historyId,
      );
      assert.equal(undone.undone, 'deleted');
      assert.equal(
        (await api.engine.request('memory.get', { id: target.id }))?.content,
        'The CI pipeline for the mobile app lives in Bitrise today.',
      );
      await reload({});
    },
    { timeoutMs: 45_000 },
  );

  test(
    'Ingest File into Memory and Open Store Folder',
    async () => {
      const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
      const file = path.join(root, 'docs-ingest-e2e.md');
      fs.writeFileSync(
        file,
        Array.from(
          { length: 4 },
          (_, i) => `Runbook step ${i}: restart the queue consumer ${i} and check the dead-letter topic before paging.`,
        ).join('\n\n'),
      );
      try {
        const r = await vscode.commands.executeCommand<DocumentIngestResult>('agentMemory.ingestFile', vscode.Uri.file(file));
        assert.equal(r.status, 'done', JSON.stringify(r));
        assert.ok(r.chunkCount >= 1);
        assert.equal((await api.engine.request('memory.get', { id: r.memoryIds[0]! }))?.type, 'document_chunk');
      } finally {
        fs.rmSync(file, { force: true });
      }
      const missing = await vscode.commands.executeCommand('agentMemory.ingestFile', path.join(root, 'no-such-file.md'));
      assert.equal(missing, undefined, 'refused with an error notification');

      const store = await vscode.commands.executeCommand<{ dir: string; action: string }>('agentMemory.openStoreFolder');
      assert.equal(store.dir, (await api.engine.request('stats', {})).project.dir);
      assert.ok(fs.existsSync(store.dir));
      assert.equal(store.action, vscode.env.uiKind === vscode.UIKind.Web ? 'offered' : 'revealed');
    },
    { timeoutMs: 30_000 },
  );
});
