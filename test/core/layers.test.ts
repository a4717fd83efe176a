// The layer order of src/core (src/core/layers.ts, ARCHITECTURE.md "Layers") holds in the
// sources: every relative import goes to the file's own folder or a lower layer, src/core never
// imports outside itself, and no files of src/core form an import cycle (type imports included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORE_LAYERS } from '../../src/core/layers';
import { importSpecifiers, listSourceFiles } from '../helpers/importScan';

const root = path.resolve(__dirname, '../..');
const core = path.join(root, 'src/core');

type Graph = Map<string, string[]>;

/** Relative specifiers only: the imports between files of the repository. */
const relativeSpecifiers = (source: string): string[] => importSpecifiers(source).filter((s) => s.startsWith('.'));

function resolveImport(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  throw new Error(`${path.relative(root, from)}: cannot resolve import '${spec}'`);
}

function scanCore(): Graph {
  const g: Graph = new Map();
  for (const f of listSourceFiles(core).filter((f) => f.endsWith('.ts'))) {
    const rel = path.relative(core, f).split(path.sep).join('/');
    const targets = relativeSpecifiers(fs.readFileSync(f, 'utf8')).map((s) => {
      const t = resolveImport(f, s);
      const r = path.relative(core, t).split(path.sep).join('/');
      return r.startsWith('..') ? `OUTSIDE:${path.relative(root, t)}` : r;
    });
    g.set(rel, targets);
  }
  return g;
}

const folderOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : '');

/** Imports that break the layer order, as "from -> to" lines. */
function layerViolations(g: Graph, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((names, i) => names.forEach((n) => rank.set(n, i)));
  const out: string[] = [];
  for (const [from, targets] of g) {
    const ff = folderOf(from);
    if (ff === '' && from !== 'layers.ts') out.push(`${from}: a file of src/core must live in a layer folder`);
    if (ff !== '' && !rank.has(ff)) out.push(`${from}: folder '${ff}' is not in CORE_LAYERS`);
    for (const to of targets) {
      if (to.startsWith('OUTSIDE:')) {
        out.push(`${from} -> ${to.slice(8)} (src/core imports nothing outside src/core)`);
        continue;
      }
      const tf = folderOf(to);
      if (tf === ff) continue;
      if (!((rank.get(tf) ?? Infinity) < (rank.get(ff) ?? -Infinity))) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function importCycles(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (g.get(v) ?? []).includes(v)) cycles.push(scc.sort());
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

test('every folder of src/core is in exactly one layer', () => {
  const folders = fs
    .readdirSync(core, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const placed = CORE_LAYERS.flat();
  assert.equal(new Set(placed).size, placed.length, 'a folder is listed twice');
  assert.deepEqual([...placed].sort(), folders);
});

test('src/core files import only their own folder or lower layers', () => {
  const g = scanCore();
  const edges = [...g.values()].reduce((n, t) => n + t.length, 0);
  assert.ok(g.size > 150 && edges > 300, `the scan found ${g.size} files and ${edges} imports: the scanner is broken`);
  assert.deepEqual(layerViolations(g, CORE_LAYERS), []);
});

test('src/core has no import cycles between files', () => {
  assert.deepEqual(importCycles(scanCore()), []);
});

test('the checks catch an upward import, an outside import, an unknown folder and a cycle', () => {
  const g: Graph = new Map([
    ['store/store.ts', ['search/bm25.ts', 'util/errors.ts']],
    ['search/bm25.ts', ['store/store.ts']],
    ['util/errors.ts', ['OUTSIDE:src/engine/errors.ts']],
    ['misc/x.ts', []],
  ]);
  assert.deepEqual(layerViolations(g, [['util'], ['store'], ['search']]), [
    'store/store.ts -> search/bm25.ts',
    'util/errors.ts -> src/engine/errors.ts (src/core imports nothing outside src/core)',
    "misc/x.ts: folder 'misc' is not in CORE_LAYERS",
  ]);
  const sameLayer = layerViolations(new Map([['graph/a.ts', ['search/b.ts']]]), [['graph', 'search']]);
  assert.deepEqual(sameLayer, ['graph/a.ts -> search/b.ts'], 'same layer, other folder');
  assert.deepEqual(importCycles(g), [['search/bm25.ts', 'store/store.ts']]);
  assert.deepEqual(
    relativeSpecifiers(
      `import type { A } from './a';\nexport { b } from "../b";\nconst c = await import('./c');\nimport './d';\nimport x from 'node:fs';`,
    ),
    ['./a', '../b', './c', './d'],
  );
});
