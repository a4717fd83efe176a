/**
 * Resumable MCP streams over HTTP (the protocol's resumability, SEP-1699): every message the
 * server sends on an SSE stream of one session is kept with an id, so a client whose stream
 * dropped — or that the server asked to reconnect — sends `Last-Event-ID` and gets what it missed,
 * the answer to its call among them. One store per session (httpServer.ts), in memory, bounded: the
 * oldest messages go beyond MAX_EVENTS or MAX_CHARS, and everything goes with the session.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Messages kept per session: a reconnect comes within seconds, long before this many more are sent. */
export const MAX_EVENTS = 500;
/** And at most this much of their JSON per session (a recall answer can be tens of kilobytes). */
export const MAX_CHARS = 2 * 1024 * 1024;

interface Kept {
  id: string;
  stream: string;
  message: JSONRPCMessage;
  chars: number;
}

export class SessionEventStore implements EventStore {
  private readonly events: Kept[] = [];
  private next = 0;
  private chars = 0;

  storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    // The id names its stream (to find it again) and its place: <stream>|<n>.
    const id = `${stream}|${++this.next}`;
    const chars = JSON.stringify(message).length;
    this.events.push({ id, stream, message, chars });
    this.chars += chars;
    // The newest always stays, whatever its size.
    while (this.events.length > 1 && (this.events.length > MAX_EVENTS || this.chars > MAX_CHARS)) this.chars -= this.events.shift()!.chars;
    return Promise.resolve(id);
  }

  getStreamIdForEventId(id: string): Promise<string | undefined> {
    return Promise.resolve(this.events.find((e) => e.id === id)?.stream);
  }

  /** Sends the messages of the event's stream kept after it; '' when the event is not kept (too old, or not ours). */
  async replayEventsAfter(id: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === id);
    if (at < 0) return '';
    const stream = this.events[at]!.stream;
    for (const e of this.events.slice(at + 1)) if (e.stream === stream) await send(e.id, e.message);
    return stream;
  }
}
