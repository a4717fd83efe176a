/**
 * The walkthrough's "Add a memory" step is done once the project or the global store holds a
 * memory, however it came (the palette, the CLI, an agent): package.json's completion event
 * `onContext:agentMemory.hasMemories`.
 *
 * VS Code registers an extension's walkthrough asynchronously (it waits up to 5 s for experiment
 * settings), and a step whose context is already true when it registers is never ticked: only a
 * later change of the key ticks it. So the key is set no earlier than 6 s after activation.
 */
import * as vscode from 'vscode';
import type { ContextKey } from '../commandIds';

export const HAS_MEMORIES_CONTEXT = 'agentMemory.hasMemories' satisfies ContextKey;
const REGISTRATION_GRACE_MS = 6000;

export class HasMemoriesContext implements vscode.Disposable {
  private readonly notBefore = Date.now() + REGISTRATION_GRACE_MS;
  private done = false;
  private timer: NodeJS.Timeout | undefined;

  /** The stores' memory count now; the key is set once (a step once done stays done). */
  update(count: number): void {
    if (this.done || this.timer || count <= 0) return;
    const wait = this.notBefore - Date.now();
    if (wait <= 0) return this.set();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.set();
    }, wait);
  }

  private set(): void {
    this.done = true;
    void vscode.commands.executeCommand('setContext', HAS_MEMORIES_CONTEXT, true);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
