/** `agent-memory mcp --http` as a process for the MCP tests: started, waited for, with a token workspace. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI_TS, ROOT } from './cliProcess';
import { fakeClone } from './clones';
import { tmpDir } from './tmp';

export interface ServedMcp {
  proc: ChildProcess;
  /** http://127.0.0.1:PORT/mcp as the server printed it. */
  url: string;
  port: number;
  /** What the server has written to stderr so far. */
  stderr: () => string;
}

export interface ServeOptions {
  /** Arguments after `--workspace WS` (e.g. `--token-file F`). */
  extra?: string[];
  /** The script run instead of the CLI (a fixture server that wraps it). */
  entry?: string;
  /** Started once this holds for the stderr too (the URL line alone by default). */
  ready?: (stderr: string) => boolean;
}

/** Starts `mcp --http 0 --workspace ws …` with AGENT_MEMORY_HOME=home and waits (60 s at most) for the line naming its URL. */
export function serveMcpHttp(ws: string, home: string, opts: ServeOptions = {}): Promise<ServedMcp> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', opts.entry ?? CLI_TS, 'mcp', '--http', '0', '--workspace', ws, ...(opts.extra ?? [])],
    {
      cwd: ROOT,
      env: { ...process.env, AGENT_MEMORY_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 60 s: ${err}`)), 60_000);
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      const m = /Streamable HTTP on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(err);
      if (m && (opts.ready?.(err) ?? true)) {
        clearTimeout(timer);
        resolve({ proc, url: m[1]!, port: Number(m[2]), stderr: () => err });
      }
    });
    proc.on('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
}

export interface TokenWorkspace {
  root: string;
  /** A clone whose agent.yaml picks the hash embedder. */
  ws: string;
  home: string;
  token: string;
  /** The token in a file of mode 0600 (`--token-file`). */
  tokenFile: string;
}

/** A fresh root with a clone on the hash embedder, a home, and a random bearer token in a 0600 file. */
export function tokenWorkspace(prefix: string): TokenWorkspace {
  const root = tmpDir(prefix);
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const token = randomBytes(32).toString('hex');
  const tokenFile = path.join(root, 'token');
  fs.writeFileSync(tokenFile, token, { mode: 0o600 });
  return { root, ws, home: path.join(root, 'home'), token, tokenFile };
}
