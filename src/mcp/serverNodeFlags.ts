/**
 * Node's options for a long-lived `agent-memory mcp` server, given by what starts one with plain
 * Node: the launcher agents start (agentLauncher.ts), VS Code's MCP server definition where the
 * extension host is not Electron (code-server, remote hosts), and the agent bench.
 *
 * `--v8-pool-size=1`: one V8 helper thread instead of Node's four. A fresh server's V8 work on them
 * is small (three small isolates: main, engine, model) except TurboFan recompiling sql.js's hot
 * WebAssembly as it tiers up, each compile with tens of MB of zone memory, freed into the C
 * library's arena of the thread that ran it. With one helper those compiles run one at a time and
 * reuse one arena: in the agent bench, peak RSS 172–180 → 153–154 MB (medians), RSS after the first
 * answer at most 149.4 MB in 29 servers where 10 of 29 with four helpers were over 150, and the first
 * answer 0.86–0.98× as late (bench/RESULTS-recall.md "Stop 41").
 *
 * Not given to Electron's Node mode (desktop VS Code's runtime): Electron makes its own V8 platform
 * with a thread count of its choosing, and this option does not reach it.
 */
export const MCP_SERVER_NODE_FLAGS: readonly string[] = ['--v8-pool-size=1'];

/** The options for a server started by `runtime`: none for Electron's Node mode. */
export function mcpServerNodeFlags(runtime: { electron: boolean }): string[] {
  return runtime.electron ? [] : [...MCP_SERVER_NODE_FLAGS];
}
