/**
 * The team memory methods of the handler table (handlers.ts spreads them in): wire params
 * checked here, then the team service (services/team.ts).
 */
import type { CallContext, MemoryEngine } from './engine';
import { EngineError } from '../errors';
import type { TeamConnectParams, TeamMethods } from '../teamProtocol';

type Handler<M extends keyof TeamMethods> = (
  engine: MemoryEngine,
  params: TeamMethods[M]['params'],
  ctx: CallContext,
) => TeamMethods[M]['result'] | Promise<TeamMethods[M]['result']>;

function optString(p: Record<string, unknown>, key: string): void {
  if (p[key] !== undefined && typeof p[key] !== 'string') throw new EngineError('invalid_input', `${key}: must be a string`);
}

function connectParams(p: unknown): TeamConnectParams {
  if (!p || typeof p !== 'object') throw new EngineError('invalid_input', 'params: must be an object');
  const o = p as Record<string, unknown>;
  for (const k of ['host', 'user', 'database', 'password', 'schema', 'tls', 'caFile', 'certFile', 'clientKey', 'author']) optString(o, k);
  if (o.port !== undefined && typeof o.port !== 'number') throw new EngineError('invalid_input', 'port: must be a number');
  return o as unknown as TeamConnectParams;
}

export const TEAM_HANDLERS: { [M in keyof TeamMethods]: Handler<M> } = {
  'team.status': (e) => e.team.status(),
  'team.connect': (e, p) => e.team.connect(connectParams(p)),
  'team.sync': (e) => e.team.sync(),
  'team.conflicts': (e) => e.team.conflicts(),
  'team.resolve': (e, p) => {
    if (typeof p?.id !== 'string' || !p.id) throw new EngineError('invalid_input', 'id: must be the conflict id');
    if (p.keep !== 'server' && p.keep !== 'mine') throw new EngineError('invalid_input', 'keep: must be server or mine');
    return e.team.resolve(p.id, p.keep);
  },
  'team.disconnect': (e) => e.team.disconnect(),
};
