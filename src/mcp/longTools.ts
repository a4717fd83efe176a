/**
 * The MCP tools that take a while — import_memories (an export file of this or another machine)
 * and ingest_document (a text file chunked into document memories) — and the server's logging.
 * A client that sends a `progressToken` with the call is told how far it is with
 * `notifications/progress` (the engine's own progress of the request, docs/transfer.md); the
 * outcome is also a logging message, and an engine warning (a store that could not be read, a
 * model that went away) reaches every client as one, each at the level the client asked for
 * (`logging/setLevel`; the SDK drops what is below it). Paths are the agent's: relative ones are
 * read from the workspace folder.
 */
import * as path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EngineClient } from '../engine/client/engineClient';
import type { RequestOptions } from '../engine/client/engineClient';
import { importFrom } from '../engine/client/transferClient';
import { formatCount, plural } from '../core/text/plural';
import { neutraliseMarkers } from '../present/recall';
import * as out from './outputs';
import { guarded, text } from './toolTable';
import { sendLog } from './logging';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The engine's progress of one request, passed on as `notifications/progress` when the client
 * asked for it. `finish` sends the last step (when the engine's own did not arrive yet) before
 * the answer, and drops any that comes after: a client takes none once it has the answer.
 */
/** The pause between the last progress notification and the answer (see finish). */
const PROGRESS_GAP_MS = 25;

export function progressOf(extra: Extra) {
  const token = extra._meta?.progressToken;
  let last = -1;
  let lastTotal: number | undefined;
  let done = false;
  // Sent one after the other: the answer waits for every one of them (finish), so none arrives after it.
  let sent: Promise<void> = Promise.resolve();
  const report = (progress: number, total: number, message?: string): Promise<void> => {
    if (token === undefined || done || progress <= last) return sent;
    last = progress;
    lastTotal = total;
    const params = { progressToken: token, progress, total, ...(message ? { message } : {}) };
    sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined)); // the client went away
    return sent;
  };
  const options: RequestOptions = { signal: extra.signal, onProgress: (d, t, m) => void report(d, t, m) };
  return {
    options,
    report,
    /** The last step: `total` (default: the engine's last total, else 1), after every step before it. */
    async finish(message?: string, total = lastTotal ?? 1): Promise<void> {
      await report(total, total, message);
      done = true;
      // The SDK's client handles a notification a microtask after it reads it, but a response at
      // once (dropping the call's progress handler): a last step read in the same chunk as the
      // answer would be lost. A moment between them keeps them apart.
      if (token !== undefined) await new Promise((r) => setTimeout(r, PROGRESS_GAP_MS));
    },
  };
}

const importOutput = z.object({
  total: z.number(),
  created: z.number(),
  duplicates: z.number(),
  skipped: z.number(),
  errors: z.array(z.object({ index: z.number(), line: z.number().optional(), message: z.string() })),
  warnings: z.array(z.object({ index: z.number(), line: z.number().optional(), message: z.string() })).optional(),
  format: z.string().optional(),
});

const ingestOutput = z.looseObject({
  documentId: z.string(),
  status: z.string(),
  chunkCount: z.number(),
  memoryIds: z.array(z.string()),
  error: z.string().nullable(),
  unchanged: z.boolean().optional(),
});

const reembedOutput = z.object({
  queued: z.number().describe('Memories queued for a vector.'),
  pending: z.number().describe('Memories still without a vector when the call ended (0 unless it was cancelled or took too long).'),
});

/** How often the vectors left are counted while waiting, and for how long at most. */
const REEMBED_POLL_MS = 250;
const REEMBED_MAX_MS = 10 * 60_000;

async function pendingVectors(engine: EngineClient): Promise<number> {
  const s = await engine.request('stats', {});
  return s.project.pendingEmbeddings + s.global.pendingEmbeddings;
}

/** Queues the memories without a vector, then counts down the ones left (the background embedder works through them). */
async function reembed(engine: EngineClient, extra: Extra, log: (level: 'info' | 'warning', data: string) => void) {
  const progress = progressOf(extra);
  const { queued } = await engine.request('embeddings.reembed', {}, progress.options);
  let pending = await pendingVectors(engine);
  const total = Math.max(queued, pending);
  const until = Date.now() + REEMBED_MAX_MS;
  while (pending > 0 && !extra.signal.aborted && Date.now() < until) {
    await progress.report(total - pending, total, `${plural(pending, 'memory', 'memories')} left`);
    await new Promise((r) => setTimeout(r, REEMBED_POLL_MS));
    pending = await pendingVectors(engine);
  }
  if (!pending && total) await progress.finish('done', total);
  const said = pending
    ? `${plural(queued, 'memory', 'memories')} queued; ${formatCount(pending)} still wait for a vector (the embedder goes on in the background).`
    : `${plural(queued, 'memory', 'memories')} queued; every memory has its vector now.`;
  log('info', said);
  return text(said, { queued, pending });
}

export function registerLongTools(server: McpServer, engine: EngineClient, workspace: string): void {
  const log = (level: 'info' | 'warning', data: string) => void sendLog(server, { level, logger: 'agent-memory', data });
  const resolve = (p: string) => path.resolve(workspace, p);

  server.registerTool(
    'import_memories',
    {
      title: 'Import memories from a file',
      description:
        'Imports the memories of an Agent Memory export (JSONL or JSON, or a JSON array of {content, …}) into this project. Exact duplicates ' +
        'are counted, not added again; bad lines are reported with their line number. Reports progress when the call carries a progress token.',
      annotations: out.ADDS,
      outputSchema: importOutput,
      inputSchema: { path: z.string().min(1).describe('The file, absolute or relative to the workspace folder.') },
    },
    (a, extra) =>
      guarded(async () => {
        const progress = progressOf(extra);
        const r = await importFrom(engine, resolve(a.path), { request: progress.options });
        await progress.finish(`${r.created} created`, r.total);
        const said =
          `Imported ${plural(r.created, 'memory', 'memories')} of ${formatCount(r.total)} from ${a.path}: ` +
          `${plural(r.duplicates, 'duplicate')}, ${formatCount(r.skipped)} skipped, ${plural(r.errors.length, 'line')} with an error.`;
        log('info', said);
        const lines = r.errors.slice(0, 10).map((e) => `- ${neutraliseMarkers(e.message)}`);
        return text([said, ...lines].join('\n'), r);
      }),
  );

  server.registerTool(
    'ingest_document',
    {
      title: 'Ingest a document',
      description:
        'Reads a text or markdown file into the project memory as a document: split into chunks that recall finds. Ingesting the same file ' +
        'again replaces its chunks (nothing is added when it did not change). Reports progress when the call carries a progress token.',
      annotations: out.SETS,
      outputSchema: ingestOutput,
      inputSchema: {
        path: z.string().min(1).describe('The file, absolute or relative to the workspace folder.'),
        title: z.string().max(200).optional(),
      },
    },
    (a, extra) =>
      guarded(async () => {
        const progress = progressOf(extra);
        const r = await engine.request(
          'documents.ingest',
          { path: resolve(a.path), ...(a.title ? { title: a.title } : {}) },
          progress.options,
        );
        await progress.finish(r.status);
        const said = r.unchanged
          ? `${a.path} is unchanged since it was ingested: nothing added.`
          : r.status === 'failed'
            ? `Could not ingest ${a.path}: ${r.error ?? 'the job failed'}.`
            : `Ingested ${a.path}: ${plural(r.chunkCount, 'chunk')} (document ${r.documentId}).`;
        log(r.status === 'failed' ? 'warning' : 'info', said);
        return r.status === 'failed' ? { isError: true, content: [{ type: 'text' as const, text: said }] } : text(said, r);
      }),
  );

  server.registerTool(
    'reembed_memories',
    {
      title: 'Embed the memories that have no vector',
      description:
        'Embeds every memory that has no vector in the active embedding model (imported ones, ones embedded by another model, failed ones) ' +
        'and waits until none is left, so meaning search finds them. Reports progress when the call carries a progress token.',
      annotations: out.SETS,
      outputSchema: reembedOutput,
      inputSchema: {},
    },
    (_a, extra) => guarded(async () => reembed(engine, extra, log)),
  );

  // Engine warnings, to every connected client at level warning.
  const sub = engine.onEvent((e) => {
    if (e.type === 'warning' && server.isConnected()) log('warning', e.message);
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    sub.dispose();
    closed?.();
  };
}
