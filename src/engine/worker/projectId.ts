/** Which project a workspace folder is, as the engine opens it (docs/project-id.md). */
import * as path from 'node:path';
import { resolveProjectId, type ProjectIdResult } from '../../core/project';
import type { ResolvedConfig } from '../../core/config';

/** The workspace's project id: VCS-agnostic (src/core/project) unless memory.normalize_project_id is off: then its folder path. */
export async function projectIdFor(root: string | undefined, config: ResolvedConfig): Promise<ProjectIdResult> {
  if (!root) return { id: 'no-workspace', kind: 'canonical', detail: 'no folder is open' };
  if (config.memory.normalize_project_id) return resolveProjectId(root);
  const folder = path.resolve(root);
  return { id: folder, kind: 'path', root: folder, detail: 'memory.normalize_project_id is off: the folder path is the project id' };
}
