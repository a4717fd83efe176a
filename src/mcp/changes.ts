/**
 * What changed in the memory, for agents (docs/changes.md): the tool `memory_changes_since`
 * (the change feed after a cursor) and the resources `memory://changes/project` and
 * `memory://changes/global` (the newest changes), which a client can subscribe to: after each
 * change the server sends `notifications/resources/updated` for it, and the client reads the
 * resource or calls the tool with its last cursor. The feed holds no memory text, only ids.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EngineClient } from '../engine/client/engineClient';
import type { ChangePage, StoreName } from '../engine/protocol';
import { plural } from '../core/text/plural';
import { MEMORY_SCOPES } from '../core/memory/types';
import { asData, guarded } from './toolTable';
import * as out from './outputs';

export const CHANGES_URI: Record<StoreName, string> = {
  project: 'memory://changes/project',
  global: 'memory://changes/global',
};

/** How many of the newest changes a read of the resource gives. */
export const RESOURCE_CHANGES = 50;

function pageSentence(p: ChangePage, since: number): string {
  const head = p.events.length
    ? `${plural(p.events.length, 'change')} after cursor ${since}, oldest first; give cursor ${p.cursor} next time.`
    : `No changes after cursor ${since}.`;
  const more = p.more ? ' More follow: call again with that cursor.' : '';
  const gap = p.gap ? ' Some changes after your cursor are no longer kept: read the memories again rather than rely on the feed.' : '';
  return head + more + gap;
}

/** Registers the tool and the resources; `subscribable` adds a URI a client may subscribe to (it is told of updates its owner sends). */
export function registerChanges(server: McpServer, engine: EngineClient): { subscribable: (uri: string) => void } {
  server.registerTool(
    'memory_changes_since',
    {
      title: 'What changed since a cursor',
      description:
        'The changes of memories (created, updated, deleted, merged, expired, restored, promoted) after a cursor, oldest first, with the memory ids and who changed them. ' +
        "Start with cursor 0 (or the `latest` of an earlier answer) and give the answer's `cursor` next time. Use get_memory for a memory's text.",
      annotations: out.READS,
      outputSchema: out.changesOutput,
      inputSchema: {
        cursor: z.number().int().min(0).optional().describe('The last cursor you saw (default 0: from the oldest change kept).'),
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many changes (default 100).'),
        scope: z.enum(MEMORY_SCOPES).optional().describe('project (default) or global.'),
      },
    },
    (a) =>
      guarded(async () => {
        const since = a.cursor ?? 0;
        const p = await engine.request('events.since', { since, store: a.scope ?? 'project', ...(a.limit ? { limit: a.limit } : {}) });
        return asData(pageSentence(p, since), p);
      }),
  );

  for (const store of ['project', 'global'] as const) {
    server.registerResource(
      `${store}-changes`,
      CHANGES_URI[store],
      {
        title: `Changes of the ${store} memory`,
        description: `The newest ${RESOURCE_CHANGES} changes of the ${store} store's memories (ids, no text). Subscribe to be told when there are more.`,
        mimeType: 'application/json',
      },
      async (uri) => {
        const latest = (await engine.request('events.since', { store, limit: 1 })).latest;
        const since = Math.max(0, latest - RESOURCE_CHANGES);
        const page = await engine.request('events.since', { store, since, limit: RESOURCE_CHANGES });
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(page) }] };
      },
    );
  }

  // Subscriptions: one `notifications/resources/updated` per commit that added changes to a subscribed store.
  const subscribed = new Set<string>();
  const known = new Set(Object.values(CHANGES_URI));
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, (req) => {
    if (!known.has(req.params.uri))
      throw new McpError(ErrorCode.InvalidParams, `No resource ${req.params.uri} to subscribe to: there are ${[...known].join(' and ')}.`);
    subscribed.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });
  const listener = engine.onEvent((e) => {
    if (e.type !== 'changes.appended' || !subscribed.has(CHANGES_URI[e.store])) return;
    server.server.sendResourceUpdated({ uri: CHANGES_URI[e.store] }).catch(() => undefined); // the client went away
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    listener.dispose();
    closed?.();
  };
  return { subscribable: (uri) => void known.add(uri) };
}
