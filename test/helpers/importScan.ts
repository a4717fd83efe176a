// Reading import specifiers from sources, for the tests that hold the direction of imports
// (test/core/layers.test.ts: the layers of src/core; test/present/boundary.test.ts: the surfaces).
import fs from 'node:fs';
import path from 'node:path';

/** Every source file below `dir` (TypeScript and JavaScript), recursively. */
export function listSourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) listSourceFiles(p, out);
    else if (/\.(?:ts|tsx|mts|cts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every specifier of static imports, re-exports (`export … from`), bare imports, `import()` and `require()`. */
export function importSpecifiers(source: string): string[] {
  const fromClause = /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/.source;
  const bare = /\bimport\s*['"]([^'"]+)['"]/.source;
  const call = /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/.source;
  const re = new RegExp(`${fromClause}|${bare}|${call}`, 'g');
  return [...source.matchAll(re)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}
