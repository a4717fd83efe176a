// `agent-memory mcp …` exactly as the CLI runs it (src/cli/main.ts → runMcp), with the MCP
// conformance suite's fixtures (conformanceFixtures.ts) added to every session's server. Run as a
// process by test/mcp/conformance.test.ts: node --import tsx test/helpers/conformanceServer.ts mcp --http 0 ….
import { parseCli } from '../../src/cli/args';
import { checkPlaces } from '../../src/cli/places';
import { runMcp } from '../../src/mcp/server';
import { conformanceFixtures } from './conformanceFixtures';

const parsed = parseCli(process.argv.slice(2), process.cwd());
if (parsed.kind !== 'run' || parsed.args.command !== 'mcp') throw new Error('usage: conformanceServer.ts mcp --http <port> …');
checkPlaces(parsed.args);
void runMcp(parsed.args, { err: (s) => process.stderr.write(`${s}\n`) }, conformanceFixtures).then((code) => process.exit(code));
