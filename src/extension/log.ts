/** The "Agent Memory" output channel with timestamps. */
import * as vscode from 'vscode';

export const OUTPUT_CHANNEL_NAME = 'Agent Memory';

export interface Logger {
  readonly channel: vscode.OutputChannel;
  info(line: string): void;
  error(line: string, err?: unknown): void;
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
            ? ` — ${String(err)}`
            : '';
      channel.appendLine(`[${stamp()}] ERROR ${line}${detail}`);
    },
  };
}
