/**
 * The folders a command needs, checked before the engine starts (which would create them): the
 * project folder must exist, and the store home must be a folder or not exist yet. A mistake
 * in --workspace or --home is a usage error (exit 2); in AGENT_MEMORY_HOME, a failure (exit 1).
 * Nothing is created when they are wrong.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOME_ENV, resolveStoreHome } from '../engine/storeLocation';
import { CliFailure } from './failure';
import { UsageError, type CliArgs } from './args';

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

/** The first folder of `p` and its parents that exists, or the file in the way. */
function inTheWay(p: string): string | undefined {
  for (let at = p; ; at = path.dirname(at)) {
    const st = statOrUndefined(at);
    if (st) return st.isDirectory() ? undefined : at;
    if (path.dirname(at) === at) return undefined;
  }
}

export function checkPlaces(args: CliArgs): void {
  const ws = path.resolve(args.workspace);
  const wsStat = statOrUndefined(ws);
  const wsName = args.workspaceGiven ? `--workspace ${ws}` : `the current folder ${ws}`;
  if (!wsStat) throw new UsageError(`${wsName} does not exist: give the project's folder.`, args.command);
  if (!wsStat.isDirectory()) throw new UsageError(`${wsName} is a file, not a folder: give the project's folder.`, args.command);

  const home = resolveStoreHome(args.home);
  const file = inTheWay(home);
  if (!file) return;
  const what = file === home ? `${home} is a file, not a folder` : `${home} cannot be made: ${file} is a file, not a folder`;
  if (args.home) throw new UsageError(`--home ${what}: give the folder for the stores (it is made if missing).`, args.command);
  if (process.env[HOME_ENV]?.trim()) {
    throw new CliFailure(`${HOME_ENV} ${what}: set it to the folder for the stores, or unset it.`, 'invalid_input');
  }
  throw new CliFailure(`The store home ${what}: give one with --home or ${HOME_ENV}.`, 'invalid_input');
}
