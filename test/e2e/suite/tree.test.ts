// The memory tree in the real extension host: grouping by tag (the view-title toggle) and back
// by type, items with title, age, importance and scope, and the copy / open-in-search actions.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { TreeNode } from '../../../src/extension/memories/memoryTree';
import type { CreateResult, MemoryRecord } from '../../../src/engine/protocol';
import { activeApi } from './activate';

function created(r: CreateResult | undefined): MemoryRecord {
  assert.ok(r && r.status === 'created', JSON.stringify(r));
  return r.memory;
}

/** The label of the search panel's tab once the workbench shows it (or of the active tab after 10 s). */
async function searchTabLabel(): Promise<string | undefined> {
  const find = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Memory Search' && t.isActive)?.label;
  for (let i = 0; i < 100 && !find(); i++) await new Promise((r) => setTimeout(r, 100));
  return find() ?? vscode.window.tabGroups.activeTabGroup.activeTab?.label;
}

suite('Memory tree', () => {
  let api: AgentMemoryApi;

  suiteSetup(async () => {
    api = await activeApi();
  });

  test('group by tag and back by type; items show title, age, importance and scope', async () => {
    const m = created(
      await api.engine.request('memory.create', {
        content: 'Tree-test: the koala cache is flushed at deploy time.',
        title: 'Koala cache flush',
        tags: ['koala', 'cache'],
        importance: 0.7,
      }),
    );
    await vscode.commands.executeCommand('agentMemory.treeGroupByTag');
    assert.equal(api.tree.grouping, 'tag');
    const roots = await api.tree.getChildren();
    const koala = roots.find((n): n is Extract<TreeNode, { kind: 'tag' }> => n.kind === 'tag' && n.tag === 'koala');
    assert.ok(koala, `a #koala group among ${roots.map((n) => (n.kind === 'tag' ? n.tag : n.kind)).join(', ')}`);
    assert.equal(koala.count, 1);
    assert.equal(api.tree.getTreeItem(koala).label, '#koala');
    const cache = roots.find((n) => n.kind === 'tag' && n.tag === 'cache')!;
    const inKoala = (await api.tree.getChildren(koala)).find((n) => n.kind === 'memory' && n.memory.id === m.id)!;
    const inCache = (await api.tree.getChildren(cache)).find((n) => n.kind === 'memory' && n.memory.id === m.id)!;
    assert.ok(inKoala && inCache, 'the memory is in both of its tag groups');
    const item = api.tree.getTreeItem(inKoala);
    assert.notEqual(item.id, api.tree.getTreeItem(inCache).id, 'tree ids stay unique across tag groups');
    assert.equal(item.label, 'Koala cache flush');
    // Age first; importance only when it is not normal; the type, as the tree is grouped by tag.
    assert.equal(String(item.description), 'just now · high importance · general');
    assert.match(
      String((item.tooltip as vscode.MarkdownString).value)
        .replace(/\\/g, '')
        .replace(/&nbsp;/g, ' '),
      /high importance \(0\.7\) · permanent · added just now \(\d+ \w+ \d{4}, \d\d:\d\d\)/,
    );
    assert.equal(item.contextValue, 'memory.permanent', 'a memory added on purpose is permanent');

    // A long title is cut on screen so the description shows at the default sidebar width; the
    // tooltip and the screen reader get all of it.
    const long = created(
      await api.engine.request('memory.create', {
        content: 'Tree-test: the wombat deploy pipeline retries a failed canary three times before paging.',
        tags: ['koala'],
      }),
    );
    const longNode = (await api.tree.getChildren(koala)).find((n) => n.kind === 'memory' && n.memory.id === long.id)!;
    const longItem = api.tree.getTreeItem(longNode);
    assert.equal(longItem.label, 'Tree-test: the wombat…');
    // The tooltip gives the whole text once: no title above it that only repeats its first words.
    const longTip = String((longItem.tooltip as vscode.MarkdownString).value)
      .replace(/\\/g, '')
      .replace(/&nbsp;/g, ' ');
    assert.equal(longTip.split('Tree-test: the wombat').length - 1, 1, longTip);
    assert.match(
      String(longItem.accessibilityInformation?.label),
      /^Tree-test: the wombat deploy pipeline retries a failed canary.*, just now · general$/,
    );

    await vscode.commands.executeCommand('agentMemory.treeGroupByType');
    assert.equal(api.tree.grouping, 'type');
    assert.ok((await api.tree.getChildren()).every((n) => n.kind === 'type'));
  });

  test('copy puts the content on the clipboard; open in search opens the panel with the title', async () => {
    const m = created(
      await api.engine.request('memory.create', {
        content: 'Tree-test: dingo jobs retry three times before paging.',
        title: 'Dingo retries',
      }),
    );
    const node: TreeNode = {
      kind: 'memory',
      memory: (await api.engine.request('memory.list', { limit: 100 })).items.find((x) => x.id === m.id)!,
    };
    await vscode.commands.executeCommand('agentMemory.copyMemory', node);
    assert.equal(await vscode.env.clipboard.readText(), m.content);
    const q = await vscode.commands.executeCommand<string>('agentMemory.openInSearch', node);
    assert.equal(q, 'Dingo retries');
    // The panel is created in the workbench after the command returns: wait for its tab.
    const label = await searchTabLabel();
    assert.equal(label, 'Memory Search');
  });
});
