// "Ingest File into Memory" through the engine's wire handler, on a real markdown file in the
// workspace: chunk titles from the headings, markdown kept for display, a workspace-relative
// source, progress per chunk; the same file again is "unchanged" and adds nothing; a changed
// file replaces only the chunks that changed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import { workspaceSource } from '../../../../src/engine/worker/services/documentIngest';
import { engineDirs } from '../../harness';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });

const ONBOARDING = (releaseDay: string) => `# Onboarding

Welcome to the team. This page is where you start.

## Setup

Install Node 20. Run \`npm ci\` in the repository root.

- Clone the repository
- Ask for access to the vault

## Releases

We cut a release every second ${releaseDay}. Hotfixes need two approvals.
`;

test('ingest a markdown file: titled chunks, markdown kept, relative source; again unchanged; changed replaces', async () => {
  const dirs = engineDirs();
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  const file = path.join(dirs.workspaceRoot, 'docs', 'ONBOARDING.md');
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, ONBOARDING('Tuesday'));
  const progress: string[] = [];
  const ingest = () =>
    Promise.resolve(
      handlers['documents.ingest'](
        engine,
        { path: file },
        { signal: new AbortController().signal, progress: (_d, _t, m) => progress.push(m ?? '') },
      ),
    );
  try {
    const first = await ingest();
    assert.equal(first.status, 'done', JSON.stringify(first));
    assert.equal(first.source, 'docs/ONBOARDING.md');
    assert.equal(first.added, 3);
    assert.equal(first.removed, 0);
    const chunks = first.memoryIds.map((id) => engine.memories.get(id)!);
    assert.deepEqual(
      chunks.map((m) => m.title),
      ['ONBOARDING.md › Onboarding (1 of 3)', 'ONBOARDING.md › Setup (2 of 3)', 'ONBOARDING.md › Releases (3 of 3)'],
    );
    assert.equal(chunks[1]!.source, 'docs/ONBOARDING.md', 'no absolute path');
    assert.equal(
      chunks[1]!.metadata.markdown,
      '## Setup\n\nInstall Node 20. Run `npm ci` in the repository root.\n\n- Clone the repository\n- Ask for access to the vault',
    );
    assert.match(chunks[1]!.content, /^## Setup Install Node 20\./, 'the stored text is whitespace-collapsed (docs/write-path.md)');
    assert.equal(progress.at(-1), 'Done', progress.join(' | ')); // the per-chunk sentences: pipelineControl.test.ts

    const again = await ingest();
    assert.equal(again.unchanged, true);
    assert.equal(again.added, 0);
    assert.deepEqual(again.memoryIds, first.memoryIds);
    assert.equal(engine.memories.list({ types: ['document_chunk'] }).total, 3, 'nothing added');

    fs.writeFileSync(file, ONBOARDING('Thursday'));
    const changed = await ingest();
    assert.equal(changed.status, 'done');
    assert.equal(changed.unchanged, false);
    assert.equal(changed.added, 1, 'only the Releases chunk is new');
    assert.equal(changed.removed, 1, 'the old Releases chunk is gone');
    assert.deepEqual(changed.memoryIds.slice(0, 2), first.memoryIds.slice(0, 2), 'unchanged chunks are kept');
    assert.equal(engine.memories.get(first.memoryIds[2]!), null);
    assert.match(engine.memories.get(changed.memoryIds[2]!)!.content, /Thursday/);
    assert.equal(engine.memories.list({ types: ['document_chunk'] }).total, 3);
  } finally {
    await engine.close();
  }
});

test('workspace-relative source: inside the root relative with "/", outside absolute', () => {
  assert.equal(workspaceSource('/w/proj', '/w/proj/docs/A.md'), 'docs/A.md');
  assert.equal(workspaceSource('/w/proj', '/w/other/A.md'), '/w/other/A.md');
  assert.equal(workspaceSource(undefined, '/w/proj/A.md'), '/w/proj/A.md');
});
