/**
 * `agent-memory removed [--expired|--deleted]` and `agent-memory restore <id>`: the recently
 * deleted and expired memories, restorable until the retention sweep purges them
 * (docs/lifecycle.md "Expired and deleted").
 */
import type { EngineClient } from '../engine/client/engineClient';
import type { RemovedMemory } from '../engine/protocol';
import { describeAgo, describeExpiry } from '../core/text/timeWords';
import { UsageError, need, type CliArgs } from './args';
import type { CommandOutput } from './commands';
import { memoryLabel } from '../present/memoryLabel';

export async function removedCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  if (a.expired && a.deleted) throw new UsageError('removed: give --expired or --deleted, not both');
  const reason = a.expired ? 'expired' : a.deleted ? 'deleted' : undefined;
  const r = await engine.request('memory.listRemoved', {
    ...(reason ? { reason } : {}),
    ...(a.limit ? { limit: a.limit } : {}),
    ...(a.offset ? { offset: a.offset } : {}),
  });
  const now = new Date();
  const what = reason ?? 'deleted or expired';
  const head =
    r.total === 0 ? `no ${what} memories` : `${r.total} ${what} ${r.total === 1 ? 'memory' : 'memories'} (agent-memory restore <id>)`;
  return { json: r, text: [head, ...r.items.map((x) => removedLine(x, now))].join('\n') };
}

export async function restoreCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const m = await engine.request('memory.restore', { id: need(a, 'id') });
  const life = describeExpiry(m.expiresAt) ?? 'permanent';
  return { json: m, text: `restored ${m.id} ${memoryLabel(m)} (${life})` };
}

function removedLine(x: RemovedMemory, now: Date): string {
  const why = x.reason === 'expired' ? 'expired' : `deleted${x.removedBy ? ` by ${x.removedBy}` : ''}`;
  const detail = x.reason === 'deleted' && x.detail ? `: ${x.detail}` : '';
  return `${x.memory.id} [${x.memory.type}] ${memoryLabel(x.memory)} — ${why} ${describeAgo(x.removedAt, now)}${detail}; purged ${x.purgeAt.slice(0, 10)}`;
}
