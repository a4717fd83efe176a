// Entry of the extension-host tests: VS Code loads the bundle built from this file (by
// scripts/e2e.mjs, which also imports every test/e2e/suite/*.test.ts into that bundle)
// through the `extensionTestsPath` payload, and calls `run()` inside the extension host.
// A rejected promise makes the host exit with code 1.
import * as vscode from 'vscode';
import { runAll } from './runner';

export async function run(): Promise<void> {
  process.setSourceMapsEnabled(true); // stack traces point into the .ts sources
  const log = (line: string) => console.log(line);
  const grep = process.env.AGENT_MEMORY_E2E_GREP || undefined;
  // scripts/e2e.mjs shows the host's console from this line on (the workbench is chatty).
  log(`[e2e-host] start: VS Code ${vscode.version}, Node ${process.version}` + (grep ? `, grep "${grep}"` : ''));
  const { passed, failed, skipped } = await runAll(log, grep);
  log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ''));
  if (failed > 0) throw new Error(`${failed} extension-host test(s) failed`);
  if (passed === 0) throw new Error('no extension-host test ran');
}
