/**
 * The handler table as clients on the socket see it: the same methods, except that a client
 * cannot stop the owner (its engine.shutdown only ends its own connection, done by the
 * client transport) nor run the debug hooks.
 */
import { EngineError } from '../../errors';
import type { HandlerTable } from '../handlers';

export function remoteHandlers(handlers: HandlerTable): HandlerTable {
  const refused = (what: string) => () => {
    throw new EngineError('invalid_input', `${what} is not available to clients of a shared store.`);
  };
  return {
    ...handlers,
    'engine.shutdown': () => ({ snapshotted: false }),
    'debug.crash': refused('debug.crash'),
    'debug.hang': refused('debug.hang'),
  };
}
