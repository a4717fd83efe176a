// Runs in the real extension host (npm run test:e2e): the `vscode` API is the real one.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi, Diagnostics } from '../../../src/extension/extension';
import { COMMAND_IDS } from '../../../src/extension/commandIds';

const EXTENSION_ID = 'agent-memory.agent-memory';

suite('Extension', () => {
  let extension: vscode.Extension<AgentMemoryApi>;

  suiteSetup(() => {
    const found = vscode.extensions.getExtension<AgentMemoryApi>(EXTENSION_ID);
    assert.ok(found, `extension ${EXTENSION_ID} is loaded`);
    extension = found;
  });

  test('contributes and registers agentMemory.showDiagnostics', async () => {
    const pkg = extension.packageJSON as { contributes?: { commands?: { command: string; title: string; category: string }[] } };
    const contributed = pkg.contributes?.commands?.find((c) => c.command === 'agentMemory.showDiagnostics');
    assert.deepEqual(contributed, {
      command: 'agentMemory.showDiagnostics',
      title: 'Show Diagnostics',
      category: 'Agent Memory',
      icon: '$(pulse)',
    });
    // Running the command activates the extension (activation inferred from contributes.commands).
    const result = await vscode.commands.executeCommand<Diagnostics>('agentMemory.showDiagnostics');
    assert.ok(extension.isActive, 'extension is active after running its command');
    const all = await vscode.commands.getCommands(true);
    assert.ok(all.includes('agentMemory.showDiagnostics'), 'command is registered');
    assert.equal(result.active, true);
    assert.equal(result.extensionVersion, (extension.packageJSON as { version: string }).version);
    assert.equal(result.vscodeVersion, vscode.version);
    assert.equal(result.extensionMode, 'test');
    assert.equal(result.workspaceFolders.length, 1, 'the e2e workspace is open');
  });

  test('registers exactly the commands of commandIds.ts', async () => {
    await extension.activate();
    const views = (extension.packageJSON as { contributes: { views: Record<string, { id: string }[]> } }).contributes.views;
    const viewIds = new Set(Object.values(views).flatMap((list) => list.map((v) => v.id)));
    // VS Code registers "<view id>.focus", "….resetViewLocation"… for each view: not ours.
    const ours = (await vscode.commands.getCommands(true)).filter(
      (c) => c.startsWith('agentMemory.') && !viewIds.has(c.slice(0, c.lastIndexOf('.'))),
    );
    assert.deepEqual([...new Set(ours)].sort(), [...COMMAND_IDS].sort());
  });

  test('exports an API from activate()', () => {
    const d = extension.exports.diagnostics();
    assert.equal(d.active, true);
    assert.match(d.node, /^v\d+\./);
  });
});
