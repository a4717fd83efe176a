// Runs the official MCP conformance suite's CLI (@modelcontextprotocol/conformance) on this
// Node.js; test/mcp/conformance.test.ts runs its server scenarios against `agent-memory mcp --http`.
// Its bundle imports fs.globSync (Node 22+): conformance-hooks.mjs supplies it on older versions.
import { createRequire, register } from 'node:module';

register('./conformance-hooks.mjs', import.meta.url);
const require = createRequire(import.meta.url);
await import(require.resolve('@modelcontextprotocol/conformance/dist/index.js'));
