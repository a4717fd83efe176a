// "Import Memories from Other Tools…" and "Export as AGENTS.md Section" in the real extension host
// (docs/import-from-tools.md): the project's CLAUDE.md and a Cursor rule become memories with their
// file and line, a second run finds nothing new, and the export writes the section into AGENTS.md
// (the rest of the file kept) that a later import does not read back. The modal question is
// answered by the command's own `confirm` option; the plan document it opens is checked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { suite, suiteSetup, suiteTeardown, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { ImportPlan } from '../../../src/cli/importFrom';
import { activeApi } from './activate';

type Outcome = { plan: ImportPlan; imported?: { created: string[] } };

suite('Import from other tools', () => {
  let api: AgentMemoryApi;
  let root: string;
  const written: string[] = [];
  const write = (rel: string, text: string) => {
    const f = path.join(root, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
    written.push(f);
  };

  suiteSetup(async () => {
    api = await activeApi();
    root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  });

  suiteTeardown(() => {
    for (const f of written) fs.rmSync(f, { force: true });
    fs.rmSync(path.join(root, '.cursor'), { recursive: true, force: true });
  });

  test('the files of other tools become memories with their line; again: nothing new; the AGENTS.md section is not read back', async () => {
    write('CLAUDE.md', '# Notes\n\n## Decisions\n- We picked Fastify over Express for its schema validation.\n');
    write('.cursor/rules/tests.mdc', '---\ndescription: Tests\n---\n- Every new endpoint gets an integration test in test/api.\n');
    const first = (await vscode.commands.executeCommand<Outcome>('agentMemory.importFromTools', { confirm: true }))!;
    const mine = first.plan.entries.filter((e) => e.file.startsWith(root));
    assert.deepEqual(
      mine.map((e) => [path.relative(root, e.file), e.item.line, e.action, e.item.type]),
      [
        ['CLAUDE.md', 4, 'add', 'decision'],
        ['.cursor/rules/tests.mdc', 4, 'add', 'general'],
      ],
    );
    const planDoc = vscode.workspace.textDocuments.find((d) => d.isUntitled && d.getText().startsWith('# Import from other tools'));
    assert.ok(planDoc, 'the plan is shown');
    assert.match(planDoc.getText(), /CLAUDE\.md \(Claude Code, this project\): 1 item\n {2}\+ line 4 \(decision\): We picked Fastify/);
    assert.ok(first.imported && first.imported.created.length >= 2);
    const hits = await api.engine.request('search', { query: 'Fastify Express schema validation', limit: 1 });
    const m = await api.engine.request('memory.get', { id: hits.hits[0]!.memory.id });
    assert.deepEqual([m?.source, m?.type], ['CLAUDE.md:4', 'decision']);

    const again = (await vscode.commands.executeCommand<Outcome>('agentMemory.importFromTools', { confirm: true }))!;
    assert.equal(again.imported, undefined, 'nothing new the second time');

    const exported = (await vscode.commands.executeCommand<{ file: string; changed: boolean }>('agentMemory.exportAgentsMd'))!;
    written.push(exported.file);
    assert.match(
      fs.readFileSync(exported.file, 'utf8'),
      /<!-- agent-memory:begin[\s\S]*We picked Fastify over Express[\s\S]*<!-- agent-memory:end -->/,
    );
    const third = (await vscode.commands.executeCommand<Outcome>('agentMemory.importFromTools', { confirm: true }))!;
    assert.equal(third.plan.entries.filter((e) => e.file === exported.file).length, 0, 'the section is not read back');

    for (const id of first.imported.created) await api.engine.request('memory.delete', { id, reason: 'test cleanup' });
  });
});
