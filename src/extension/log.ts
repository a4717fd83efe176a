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
  // As the window closes VS Code closes the channel before deactivate() has finished: appendLine then
  // throws "Channel has been closed", which must not abort the engine's shutdown that logged the line.
  const write = (text: string) => {
    try {
      channel.appendLine(text);
    } catch {
      // The line has nowhere to go any more.
    }
  };
  return {
    channel,
    info: (line) => write(`[${stamp()}] ${line}`),
    error: (line, err) => {
      const detail =
        err instanceof Error
          ? ` — ${err.message}${(err as { detail?: string }).detail ? `\n${(err as { detail?: string }).detail}` : ''}`
          : err !== undefined
            ? ` — ${describe(err)}`
            : '';
      write(`[${stamp()}] ERROR ${line}${detail}`);
    },
  };
}
