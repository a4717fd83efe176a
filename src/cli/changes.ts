/**
 * `agent-memory events` and `agent-memory webhooks` (docs/changes.md): the change feed after a
 * cursor (--follow keeps printing changes as they come, until Ctrl+C), and the project's webhooks:
 * their state, recent deliveries and failures, a test event, signing secrets, dead ones sent again.
 */
import type { EngineClient } from '../engine/client/engineClient';
import type { ChangeEvent, ChangePage, WebhookDelivery, WebhookInfo } from '../engine/protocol';
import { UsageError, type CliArgs } from './args';
import type { CommandIo, CommandOutput } from './commands';
import { plural } from '../core/text/plural';

/** One change, as a person reads it: cursor, time, what happened, to which memory, by whom. */
export function eventLine(e: ChangeEvent): string {
  const into = e.mergedInto ? ` into ${e.mergedInto}` : '';
  return `${e.cursor}  ${e.at}  ${e.type.replace('memory.', '')} ${e.memoryId}${into} (version ${e.version}, ${e.store}${e.actor ? `, by ${e.actor}` : ''})`;
}

const GAP =
  'some changes after that cursor are no longer kept (older than the history kept): read the memories again rather than rely on the feed';

export async function eventsCommand(engine: EngineClient, a: CliArgs, io: CommandIo): Promise<CommandOutput> {
  const store = a.scope ?? 'project';
  if (a.follow) return follow(engine, a, io);
  const page = await engine.request('events.since', { since: a.since ?? 0, store, ...(a.limit ? { limit: a.limit } : {}) });
  const lines = page.events.map(eventLine);
  const tail = page.more ? [`more changes follow: agent-memory events --since ${page.cursor}`] : [];
  const head = page.gap ? [`note: ${GAP}.`] : [];
  return { json: page, text: [...head, ...(lines.length ? lines : [`no changes after ${page.cursor}`]), ...tail].join('\n') };
}

/**
 * --follow: every change after the cursor, as it comes (one line each; with --json one JSON
 * object per line), through the engine's long poll. Ctrl+C (or SIGTERM) ends it cleanly, exit 0,
 * with the cursor it stopped at on stderr (to give as --since next time).
 */
async function follow(engine: EngineClient, a: CliArgs, io: CommandIo): Promise<CommandOutput> {
  const stop = new AbortController();
  const end = () => stop.abort();
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  let cursor = a.since ?? (await engine.request('events.since', { store: a.scope ?? 'project', since: 0, limit: 1 })).latest;
  try {
    while (!stop.signal.aborted) {
      const page = await waitPage(engine, a, cursor, stop.signal);
      if (!page) break;
      if (page.gap) io.stderr.write(`agent-memory: ${GAP}.\n`);
      for (const e of page.events) io.stdout.write(`${a.json ? JSON.stringify(e) : eventLine(e)}\n`);
      cursor = page.cursor;
    }
  } finally {
    process.off('SIGINT', end);
    process.off('SIGTERM', end);
  }
  return { json: { cursor }, text: `stopped following at cursor ${cursor}`, toStderr: true };
}

/** The next page after `cursor`, or undefined once the person stopped following. */
async function waitPage(engine: EngineClient, a: CliArgs, since: number, signal: AbortSignal): Promise<ChangePage | undefined> {
  try {
    return await engine.request('events.wait', { since, store: a.scope ?? 'project', ...(a.limit ? { limit: a.limit } : {}) }, { signal });
  } catch (e) {
    if (signal.aborted) return undefined;
    throw e;
  }
}

export const WEBHOOK_ACTIONS = ['list', 'deliveries', 'test', 'secret', 'retry'] as const;
type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];

type Action = (engine: EngineClient, a: CliArgs, name: () => string, given: string | undefined) => Promise<CommandOutput>;

const ACTIONS: Record<WebhookAction, Action> = {
  list: async (engine) => {
    const r = await engine.request('webhooks.list', {});
    const lines = r.webhooks.map(webhookLine);
    const none = ['no webhooks are configured (webhooks.endpoints in agent.yaml)'];
    return { json: r, text: [...(lines.length ? lines : none), `signing secrets: ${r.secretsKeptIn}`].join('\n') };
  },
  deliveries: async (engine, a, _name, given) => {
    const r = await engine.request('webhooks.deliveries', {
      ...(given ? { name: given } : {}),
      ...(a.failed ? { failed: true } : {}),
      ...(a.limit ? { limit: a.limit } : {}),
    });
    const none = a.failed ? 'no failed deliveries' : 'no deliveries yet';
    return { json: { deliveries: r }, text: r.length ? r.map(deliveryLine).join('\n') : none };
  },
  test: async (engine, _a, name) => {
    const d = await engine.request('webhooks.test', { name: name() });
    const failure = d.status === 'delivered' ? {} : { failure: `the test event was not delivered: ${d.lastError ?? 'no answer'}` };
    return { json: d, text: deliveryLine(d), ...failure };
  },
  secret: async (engine, a, name) => {
    const r = await engine.request('webhooks.secret', { name: name(), ...(a.rotate ? { rotate: true } : {}) });
    const how = r.created ? 'a new signing secret' : 'the signing secret';
    return {
      json: r,
      text: `${r.secret}\n(${how} of ${r.name}, kept in ${r.keptIn}; give it to the receiver: docs/changes.md says how it checks deliveries)`,
    };
  },
  retry: async (engine, _a, _name, given) => {
    const r = await engine.request('webhooks.retry', given ? { name: given } : {});
    return { json: r, text: `${plural(r.requeued, 'dead delivery', 'dead deliveries')} queued again` };
  },
};

export async function webhooksCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const [word = 'list', given] = a.positionals;
  if (!(WEBHOOK_ACTIONS as readonly string[]).includes(word))
    throw new UsageError(`webhooks: unknown action "${word}" (one of ${WEBHOOK_ACTIONS.join(', ')})`, 'webhooks');
  const name = () => {
    if (!given) throw new UsageError(`webhooks ${word}: give the webhook's name`, 'webhooks');
    return given;
  };
  return ACTIONS[word as WebhookAction](engine, a, name, given);
}

function webhookLine(w: WebhookInfo): string {
  const state = {
    active: 'active',
    needs_secret: 'no signing secret yet: nothing is sent',
    paused: 'paused: this workspace is not trusted',
  }[w.state];
  const types = w.events.length ? w.events.join(', ') : 'every change';
  return `${w.name}  ${w.url}  (${types}; ${state}; ${w.pending} pending, ${w.delivered} delivered, ${w.dead} dead)`;
}

export function deliveryLine(d: WebhookDelivery): string {
  const when = d.lastAttemptAt ?? d.createdAt;
  const what = d.cursor !== null ? `${d.eventType} #${d.cursor}` : d.eventType;
  const tries = plural(d.attempts, 'attempt');
  const why = d.status === 'delivered' ? '' : d.lastError ? `: ${d.lastError}` : '';
  const status = d.status === 'pending' && d.attempts > 0 ? `failing, next try at ${d.nextAttemptAt}` : d.status;
  return `${when}  ${d.webhook}  ${what}  ${status} after ${tries}${why}  · delivery ${d.id}`;
}
