/**
 * What EngineClient talks through: the engine worker thread (node's Worker has this shape) or
 * a connection to the store's owner (socketTransport.ts, sharedTransport.ts). `exit` fires once
 * when the engine on the other side is gone (thread ended, socket closed).
 */
import type { FromEngineMessage, ToEngineMessage } from '../protocol';

export interface EngineTransport {
  /**
   * True when the engine is another process's (a connection to the store's owner): its `exit` is
   * the owner going away, not a crash of ours — EngineClient reconnects at once and sends what
   * can safely go again.
   */
  readonly remote?: boolean;
  postMessage(message: ToEngineMessage): void;
  on(event: 'message', listener: (message: FromEngineMessage) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  terminate(): Promise<number>;
}
