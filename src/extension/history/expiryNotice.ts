/**
 * Nothing expires silently (docs/lifecycle.md "Expired and deleted"): when short-term memories
 * expire while this window is open, and at the next start for those that expired while it was
 * closed (another window, the CLI or an MCP server owned the store), one notification says so and
 * where to restore them. The window remembers (workspace state) the newest expiry it told about,
 * so each is told once.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { RemovedMemory } from '../../engine/protocol';
import { Debounced } from '../common/debounce';
import { expiredNotice } from './lifetimeMessages';
import type { Logger } from '../host/log';

/** Workspace state: the removal time (ISO) of the newest expiry this window has told about. */
export const EXPIRED_SEEN_KEY = 'agentMemory.expiredSeenUntil';
const LOOK_AT = 100;

export function registerExpiryNotice(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): void {
  let checking: Promise<void> = Promise.resolve();
  // Both stores sweep on the same tick: their events become one notice.
  const later = new Debounced(() => {
    checking = checking.then(() => check(context, engine)).catch((e: unknown) => log.error('expiry notice', e));
  }, 1000);
  context.subscriptions.push(
    { dispose: () => later.cancel() },
    engine.onEvent((e) => {
      if (e.type === 'memory.changed' && e.kind === 'expired' && e.ids.length) later.trigger();
    }),
    engine.onStateChange((s) => {
      later.hold(s.state === 'stopping' || s.state === 'stopped');
      if (s.state === 'ready') later.trigger(); // expiries while this window was closed
    }),
  );
}

/** Expired memories not told about yet, most recent first. */
async function unseen(context: vscode.ExtensionContext, engine: EngineClient): Promise<RemovedMemory[]> {
  const seen = context.workspaceState.get<string>(EXPIRED_SEEN_KEY);
  const { items } = await engine.request('memory.listRemoved', { reason: 'expired', limit: LOOK_AT });
  return items.filter((x) => seen === undefined || x.removedAt > seen);
}

async function check(context: vscode.ExtensionContext, engine: EngineClient): Promise<void> {
  const fresh = await unseen(context, engine);
  const newest = fresh[0];
  if (!newest) return;
  await context.workspaceState.update(EXPIRED_SEEN_KEY, newest.removedAt);
  const actions = fresh.length === 1 ? ['Restore', 'Show'] : ['Show'];
  void vscode.window.showInformationMessage(expiredNotice(fresh), ...actions).then(async (pick) => {
    if (pick === 'Restore') await vscode.commands.executeCommand('agentMemory.restoreMemory', newest.memory.id);
    if (pick === 'Show') await vscode.commands.executeCommand('agentMemory.removed.focus');
  });
}
