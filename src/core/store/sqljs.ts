/**
 * Loads sql.js once per thread. The .wasm file is looked up next to the running
 * bundle first (esbuild copies it to dist/), then in node_modules (tests, tools).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

function findWasm(explicit?: string): string | undefined {
  const candidates = [
    explicit,
    process.env.AGENT_MEMORY_SQL_WASM,
    path.join(__dirname, 'sql-wasm.wasm'),
    path.join(__dirname, '..', 'sql-wasm.wasm'),
  ];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  try {
    return require.resolve('sql.js/dist/sql-wasm.wasm');
  } catch {
    return undefined;
  }
}

export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
  if (!loading) {
    const file = findWasm(wasmPath);
    loading = file ? initSqlJs({ wasmBinary: fs.readFileSync(file) as unknown as ArrayBuffer }) : initSqlJs();
    loading.catch(() => (loading = undefined));
  }
  return loading;
}
