/**
 * Workspace trust: in an untrusted workspace the engine runs restricted (memories read-only,
 * the pipeline off) and the person is told once; when trust is granted, the engine restarts
 * writable and the views refresh. The `agentMemory.restricted` context key follows it (the
 * pipeline's status keeps it current afterwards, pipelineCommands.ts).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { Logger } from '../host/log';
import { reportError } from '../common/commandTable';
import type { ContextKey } from '../commandIds';

export const KEY_RESTRICTED = 'agentMemory.restricted' satisfies ContextKey;

export function registerWorkspaceTrust(d: { context: vscode.ExtensionContext; engine: EngineClient; log: Logger; refresh(): void }): void {
  const { context, engine, log } = d;
  void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, !vscode.workspace.isTrusted);
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: restarting the memory engine writable');
      engine.updateInit({ restricted: false });
      void vscode.commands.executeCommand('setContext', KEY_RESTRICTED, false);
      engine.restart().then(
        () => d.refresh(),
        (e) => reportError(log, 'restart after trust', e),
      );
    }),
  );
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showInformationMessage(
      'Agent Memory runs in restricted mode in this untrusted workspace: memories are read-only and the pipeline is off until you trust it.',
    );
  }
}
