/** Runs `agent-memory` from the sources (node --import tsx src/cli/main.ts) as a real process. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const CLI_TS = path.join(ROOT, 'src/cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** Written to the process's stdin, which is then closed (default: no stdin at all). */
  stdin?: string | Buffer;
  /** Working directory (default: the repository). */
  cwd?: string;
}

export function runCli(args: string[], env: Record<string, string>, opts: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CLI_TS, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ...env },
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    if (opts.stdin !== undefined) p.stdin!.end(opts.stdin);
  });
}
