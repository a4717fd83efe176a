// Module hooks for scripts/conformance.mjs: the conformance suite's bundle gets an `fs` that also
// exports globSync (Node.js 22+); on an older Node it throws if called (only the suite's tier
// report calls it, never a server scenario).
const SHIM =
  "import fs from 'node:fs'; export * from 'node:fs'; export default fs; " +
  "export const globSync = fs.globSync ?? (() => { throw new Error('fs.globSync needs Node.js 22 or later.'); });";

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: `data:text/javascript,${encodeURIComponent(SHIM)}`, shortCircuit: true };
  }
  return next(specifier, context);
}
