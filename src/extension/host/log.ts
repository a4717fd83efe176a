/** The "Agent Memory" output channel with timestamps. */
import * as vscode from 'vscode';

export const OUTPUT_CHANNEL_NAME = 'Agent Memory';

export interface Logger {
  readonly channel: vscode.OutputChannel;
  info(line: string): void;
  error(line: string, err?: unknown): void;
}

/** A thrown non-Error as text: a primitive as itself, an object as JSON (not '[object Object]'). */
function describe(err: unknown): string {
  if (typeof err === 'symbol' || typeof err === 'function') return err.toString();
  if (typeof err !== 'object' || err === null) return String(err);
  try {
    return JSON.stringify(err);
  } catch {
    return Object.prototype.toString.call(err);
  }
}

export function createLogger(): Logger {
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME);
  const stamp = () => new Date().toISOString();
  return {
    channel,
    info: (line) => channel.appendLine(`[${stamp()}] ${line}`),
    error: (line, err) => {
      const detail =
        err instanceof Error
          ? ` — ${err.message}${(err as { detail?: string }).detail ? `\n${(err as { detail?: string }).detail}` : ''}`
          : err !== undefined
            ? ` — ${describe(err)}`
            : '';
      channel.appendLine(`[${stamp()}] ERROR ${line}${detail}`);
    },
  };
}
