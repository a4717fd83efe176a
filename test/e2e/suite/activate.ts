// Shared by the extension-host suites: the extension's API once it is active and its engine ready.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApi } from '../../../src/extension/extension';

export const EXTENSION_ID = 'agent-memory.agent-memory';

export async function activeApi(): Promise<AgentMemoryApi> {
  const ext = vscode.extensions.getExtension<AgentMemoryApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is loaded`);
  const api = ext.isActive ? ext.exports : await ext.activate();
  await api.engine.whenReady();
  return api;
}
