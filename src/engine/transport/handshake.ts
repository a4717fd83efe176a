/**
 * The first frame on a store socket: the client proves it can read the store's secret file
 * (same OS user) and says which protocol it speaks. The owner answers with the protocol's
 * ReadyMessage, or a FatalMessage and closes. Everything after is ToEngineMessage /
 * FromEngineMessage (protocol.ts), as on the worker's MessagePort.
 */
export interface HelloMessage {
  kind: 'hello';
  secret: string;
  protocolVersion: number;
  /** Who connects (shown in the owner's log). */
  client?: string;
}

export function isHello(m: unknown): m is HelloMessage {
  const h = m as Partial<HelloMessage> | null;
  return !!h && typeof h === 'object' && h.kind === 'hello' && typeof h.secret === 'string' && typeof h.protocolVersion === 'number';
}
