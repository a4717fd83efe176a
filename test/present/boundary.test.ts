// The direction of imports between the surfaces (ARCHITECTURE.md "Shared presentation"):
// src/mcp, src/cli, webview/ and src/present never import src/extension (the VS Code surface);
// src/present never imports `vscode`; src/core and src/engine never import a surface. Type
// imports, re-exports, `import()` and `require()` count like any import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { importSpecifiers, listSourceFiles } from '../helpers/importScan';

const root = path.resolve(__dirname, '../..');

/** A rule: files under `from` may not import anything under one of `banned` (paths from the root). */
interface Rule {
  from: string;
  banned: readonly string[];
}

const SURFACES = ['src/extension', 'src/mcp', 'src/cli', 'src/present', 'webview'];
const RULES: readonly Rule[] = [
  { from: 'src/mcp', banned: ['src/extension'] },
  { from: 'src/cli', banned: ['src/extension'] },
  { from: 'webview', banned: ['src/extension'] },
  { from: 'src/present', banned: ['src/extension', 'src/mcp', 'src/cli', 'webview'] },
  { from: 'src/core', banned: SURFACES },
  { from: 'src/engine', banned: SURFACES },
];
/** Bare module names a folder may never import. */
const BANNED_MODULES: readonly Rule[] = [
  { from: 'src/present', banned: ['vscode'] },
  { from: 'src/core', banned: ['vscode'] },
  { from: 'src/engine', banned: ['vscode'] },
];

const toPosix = (p: string): string => p.split(path.sep).join('/');
const under = (file: string, folder: string): boolean => file === folder || file.startsWith(`${folder}/`);

/** The violations in `files` (root-relative path → source), as "file -> target (rule)" lines. */
function boundaryViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    for (const spec of importSpecifiers(source)) {
      if (spec.startsWith('.')) {
        const target = toPosix(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
        for (const r of RULES)
          if (under(file, r.from))
            for (const b of r.banned) if (under(target, b)) out.push(`${file} -> ${target} (${r.from} never imports ${b})`);
      } else {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        for (const r of BANNED_MODULES)
          if (under(file, r.from) && r.banned.includes(name)) out.push(`${file} -> '${spec}' (${r.from} never imports ${name})`);
      }
    }
  }
  return out;
}

function scan(folders: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const folder of folders) {
    const dir = path.join(root, folder);
    if (!fs.existsSync(dir)) continue;
    for (const f of listSourceFiles(dir)) files.set(toPosix(path.relative(root, f)), fs.readFileSync(f, 'utf8'));
  }
  return files;
}

test('src/mcp, src/cli, webview and src/present never import src/extension; src/core and src/engine no surface', () => {
  const files = scan(['src/mcp', 'src/cli', 'webview', 'src/present', 'src/core', 'src/engine']);
  const imports = [...files.values()].reduce((n, s) => n + importSpecifiers(s).length, 0);
  const presentUsers = [...files].filter(([f, s]) => !under(f, 'src/present') && /['"][./]+(?:src\/)?present\//.test(s)).length;
  // The scan must see the code it guards: hundreds of files, thousands of imports, and the
  // surfaces reaching the shared presentation through src/present.
  assert.ok(files.size > 300 && imports > 1500, `the scan found ${files.size} files and ${imports} imports: the scanner is broken`);
  assert.ok(presentUsers >= 10, `only ${presentUsers} files import src/present: the scanner is broken`);
  assert.deepEqual(boundaryViolations(files), []);
});

test('src/present, src/core and src/engine never import vscode', () => {
  const files = scan(['src/present', 'src/core', 'src/engine']);
  assert.ok(files.size > 3, 'src/present is empty');
  assert.deepEqual(
    boundaryViolations(files).filter((v) => v.includes("'vscode")),
    [],
  );
});

test('the check catches each kind of forbidden import', () => {
  const files = new Map<string, string>([
    ['src/mcp/tools.ts', `import { recallContext } from '../extension/recall';`],
    ['src/cli/hook.ts', `const r = require('../extension/x');`],
    ['webview/search.ts', `import type { A } from '../src/extension/webviewMessages';`],
    ['src/present/a.ts', `import * as vscode from 'vscode';\nexport { b } from '../extension/b';`],
    ['src/present/c.ts', `const m = await import('vscode/sub');`],
    ['src/engine/e.ts', `import { x } from '../mcp/x';`],
    ['src/core/text/t.ts', `import { y } from '../../present/y';`],
    ['src/mcp/ok.ts', `import { z } from '../present/recall';\nimport { w } from '../cli/connect';\nimport fs from 'node:fs';`],
    ['src/extension/ok.ts', `import * as vscode from 'vscode';\nimport { r } from '../present/recall';`],
  ]);
  assert.deepEqual(boundaryViolations(files), [
    'src/mcp/tools.ts -> src/extension/recall (src/mcp never imports src/extension)',
    'src/cli/hook.ts -> src/extension/x (src/cli never imports src/extension)',
    'webview/search.ts -> src/extension/webviewMessages (webview never imports src/extension)',
    "src/present/a.ts -> 'vscode' (src/present never imports vscode)",
    'src/present/a.ts -> src/extension/b (src/present never imports src/extension)',
    "src/present/c.ts -> 'vscode/sub' (src/present never imports vscode)",
    'src/engine/e.ts -> src/mcp/x (src/engine never imports src/mcp)',
    'src/core/text/t.ts -> src/present/y (src/core never imports src/present)',
  ]);
});
