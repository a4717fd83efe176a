// Where VS Code's memory tool is looked for on each platform (src/core/imports/toolFiles.ts
// vsCodeUserDirs), and a workspace storage folder found by the project its workspace.json names.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { vsCodeMemoryFiles, vsCodeUserDirs } from '../../../src/core/imports/toolFiles';
import { tmpDir } from '../../helpers/tmp';

test("VS Code's user folders: the platform's application data, VS Code Server and code-server", () => {
  const home = '/h';
  assert.deepEqual(
    vsCodeUserDirs(home, {}, 'linux').slice(0, 3),
    ['Code', 'Code - Insiders', 'VSCodium'].map((b) => `/h/.config/${b}/User`),
  );
  assert.equal(vsCodeUserDirs(home, { XDG_CONFIG_HOME: '/x' }, 'linux')[0], '/x/Code/User');
  assert.equal(vsCodeUserDirs(home, {}, 'darwin')[0], '/h/Library/Application Support/Code/User');
  assert.equal(vsCodeUserDirs(home, { APPDATA: '/h/AppData/Roaming' }, 'win32')[0], path.join('/h/AppData/Roaming', 'Code', 'User'));
  assert.ok(vsCodeUserDirs(home, {}, 'linux').includes('/h/.vscode-server/data/User'));
  assert.ok(vsCodeUserDirs(home, {}, 'linux').includes('/h/.local/share/code-server/User'));
});

test('repository memory comes from the workspace storage whose workspace.json names this project, through a link too', () => {
  const root = tmpDir('am-vscode-memory-');
  const ws = path.join(root, 'project');
  fs.mkdirSync(ws);
  fs.symlinkSync(ws, path.join(root, 'link'));
  const user = path.join(root, 'home', '.vscode-server', 'data', 'User');
  const storage = path.join(user, 'workspaceStorage', 'abc123');
  const repo = path.join(storage, 'GitHub.copilot-chat', 'memory-tool', 'memories', 'repo');
  fs.mkdirSync(repo, { recursive: true });
  fs.writeFileSync(path.join(repo, 'notes.md'), '- The API listens on port 8080 in development.\n');
  fs.writeFileSync(path.join(repo, 'notes.txt'), 'not markdown');
  // VS Code opened the project through the link.
  fs.writeFileSync(path.join(storage, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(path.join(root, 'link')).href }));
  const env = { XDG_CONFIG_HOME: path.join(root, 'none'), XDG_DATA_HOME: path.join(root, 'none') };
  assert.deepEqual(vsCodeMemoryFiles(ws, path.join(root, 'home'), env), [
    { tool: 'VS Code memory', path: path.join(repo, 'notes.md'), scope: 'project' },
  ]);
  // A remote folder or a broken workspace.json: not this project, and no error.
  fs.writeFileSync(path.join(storage, 'workspace.json'), JSON.stringify({ folder: 'vscode-remote://ssh-remote+box/project' }));
  assert.deepEqual(vsCodeMemoryFiles(ws, path.join(root, 'home'), env), []);
  fs.writeFileSync(path.join(storage, 'workspace.json'), '{ not json');
  assert.deepEqual(vsCodeMemoryFiles(ws, path.join(root, 'home'), env), []);
});

test("the running VS Code's own User folder is searched first (any --user-data-dir), and a folder given twice is read once", () => {
  const root = tmpDir('am-vscode-memory-');
  const user = path.join(root, 'portable', 'data', 'user-data', 'User');
  const memories = path.join(user, 'globalStorage', 'github.copilot-chat', 'memory-tool', 'memories');
  fs.mkdirSync(memories, { recursive: true });
  fs.writeFileSync(path.join(memories, 'prefs.md'), '- Prefers tabs over spaces in Go files.\n');
  const env = { XDG_CONFIG_HOME: path.join(root, 'none'), XDG_DATA_HOME: path.join(root, 'none') };
  const home = path.join(root, 'home');
  assert.deepEqual(vsCodeMemoryFiles(path.join(root, 'ws'), home, env), [], 'not in a usual place');
  assert.deepEqual(vsCodeMemoryFiles(path.join(root, 'ws'), home, env, [user, `${user}/`]), [
    { tool: 'VS Code memory', path: path.join(memories, 'prefs.md'), scope: 'global' },
  ]);
});
