/**
 * How the extension registers its commands: each feature keeps a table of small handlers, one
 * entry per command id (the CLI's COMMAND_TABLE in src/cli/commands.ts is the model), and
 * registers it with `registerCommandTable`. A handler gets the feature's context object first,
 * then the command's arguments; a failure becomes a notification (reportError) instead of an
 * unhandled rejection, and the command then returns undefined. Commands return their outcome, so
 * tests and other extensions can run them with arguments instead of prompts.
 */
import * as vscode from 'vscode';
import { EngineError } from '../../engine/errors';
import { errorNotification } from '../../present/errorText';
import type { Logger } from '../host/log';

/** Shows an engine error as a notification (the code's sentence, the engine's message as detail) and logs it. */
export function reportError(log: Logger, what: string, e: unknown): void {
  log.error(what, e);
  if (e instanceof EngineError && e.code === 'cancelled') return;
  void vscode.window.showErrorMessage(errorNotification(what, e));
}

/** Registers one command whose failure becomes a notification (reportError); the command then returns undefined. */
export type Registrar = <A extends unknown[], R>(id: string, what: string, fn: (...args: A) => Promise<R>) => void;

export function commandRegistrar(context: vscode.ExtensionContext, log: Logger): Registrar {
  return <A extends unknown[], R>(id: string, what: string, fn: (...args: A) => Promise<R>): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: A) => {
        try {
          return await fn(...args);
        } catch (e) {
          reportError(log, what, e);
          return undefined;
        }
      }),
    );
  };
}

/** One command of a feature's table: what it does, in words (the error notification and the log say it), and its handler. */
export interface CommandEntry<C> {
  what: string;
  run(c: C, ...args: unknown[]): Promise<unknown>;
}

/** Registers every entry of `table` under its id in `ids`, each handler given `c` first. */
export function registerCommandTable<K extends string, C>(
  run: Registrar,
  ids: Readonly<Record<K, string>>,
  table: Readonly<Partial<Record<K, CommandEntry<C>>>>,
  c: C,
): void {
  for (const key of Object.keys(table) as K[]) {
    const entry = table[key]!;
    run(ids[key], entry.what, (...args: unknown[]) => entry.run(c, ...args));
  }
}
