/** The uncached resolver: one raw project id (an id, a URL or a path) to its canonical form. */
import { classifyRawInput } from './rawInput';
import { resolvePath } from './resolvePath';
import type { ProjectIdResult, ResolveOptions } from './types';

/** Throws `UserFacingError` (code `project_id_invalid`) for a non-string or blank input; never for odd files. */
export function computeProjectId(rawIdOrPath: string, opts: ResolveOptions = {}): ProjectIdResult {
  const input = classifyRawInput(rawIdOrPath, opts);
  return input.kind === 'id' ? input.result : resolvePath(input.path);
}
