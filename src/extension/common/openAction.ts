/**
 * A message that names a memory offers "Open" (the memory opens as its document), so no message
 * leaves a person with a name and no way to reach the memory.
 */
import * as vscode from 'vscode';
import type { CommandId } from '../commandIds';

/** The command that opens a memory's document (package.json: agentMemory.openMemory). */
const OPEN_MEMORY = 'agentMemory.openMemory' satisfies CommandId;

export async function showWithOpen(message: string, memoryId: string, ...more: string[]): Promise<string | undefined> {
  const pick = await vscode.window.showInformationMessage(message, 'Open', ...more);
  if (pick === 'Open') await vscode.commands.executeCommand(OPEN_MEMORY, memoryId);
  return pick;
}
