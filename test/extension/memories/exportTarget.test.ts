// Where Export Memories… proposes to save (src/extension/memories/exportTarget.ts): the last export
// folder, else ~/Downloads, else home — never inside the workspace. Real folders in a temp dir.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultExportPath } from '../../../src/extension/memories/exportTarget';

const isDirectory = (p: string) => fs.existsSync(p) && fs.statSync(p).isDirectory();
const now = new Date('2026-11-24T08:00:00Z');

function homeWith(...folders: string[]): { home: string; repo: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'export-home-'));
  for (const f of folders) fs.mkdirSync(path.join(home, f), { recursive: true });
  const repo = path.join(home, 'src', 'widgets');
  fs.mkdirSync(repo, { recursive: true });
  return { home, repo };
}

test('no earlier export: the Downloads folder, with a dated name; never the workspace root', () => {
  const { home, repo } = homeWith('Downloads');
  const p = defaultExportPath({ lastFolder: undefined, home, workspaceFolders: [repo], isDirectory, now });
  assert.equal(p, path.join(home, 'Downloads', 'agent-memory-2026-11-24.jsonl'));
  assert.ok(!p.startsWith(repo));
});

test('no Downloads folder: the home folder', () => {
  const { home, repo } = homeWith();
  assert.equal(
    defaultExportPath({ lastFolder: undefined, home, workspaceFolders: [repo], isDirectory, now }),
    path.join(home, 'agent-memory-2026-11-24.jsonl'),
  );
});

test('the folder of the last export wins, unless it is gone or inside the workspace', () => {
  const { home, repo } = homeWith('Downloads', 'backups');
  const backups = path.join(home, 'backups');
  const place = (lastFolder: string) => path.dirname(defaultExportPath({ lastFolder, home, workspaceFolders: [repo], isDirectory, now }));
  assert.equal(place(backups), backups);
  assert.equal(place(path.join(home, 'deleted-since')), path.join(home, 'Downloads'), 'a folder that no longer exists');
  assert.equal(place(repo), path.join(home, 'Downloads'), 'the workspace root');
  fs.mkdirSync(path.join(repo, 'exports'));
  assert.equal(place(path.join(repo, 'exports')), path.join(home, 'Downloads'), 'a folder inside the workspace');
});

test('a home folder that is itself the workspace: still not inside it when Downloads is elsewhere', () => {
  const { home } = homeWith('Downloads');
  const p = defaultExportPath({
    lastFolder: undefined,
    home,
    workspaceFolders: [path.join(home, 'Downloads', '..', 'src')],
    isDirectory,
    now,
  });
  assert.equal(path.dirname(p), path.join(home, 'Downloads'));
});
