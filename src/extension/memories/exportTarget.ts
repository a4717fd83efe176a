/**
 * Where "Export Memories…" proposes to save: the folder of the last export, else the user's
 * Downloads folder, else their home folder — never the workspace, where an export (every
 * memory, in clear text) is easily committed. No `vscode` import: tested directly.
 */
import * as path from 'node:path';

export const LAST_EXPORT_FOLDER_KEY = 'agentMemory.lastExportFolder';

export interface ExportPlaceInput {
  /** The folder of the previous export, if any (from the extension's global state). */
  lastFolder: string | undefined;
  home: string;
  /** The open workspace folders: a proposed folder inside one of them is not used. */
  workspaceFolders: readonly string[];
  isDirectory: (p: string) => boolean;
  now: Date;
}

function inside(folder: string, parent: string): boolean {
  const rel = path.relative(parent, folder);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The proposed file: `<folder>/agent-memory-<YYYY-MM-DD>.jsonl`. */
export function defaultExportPath(input: ExportPlaceInput): string {
  const candidates = [input.lastFolder, path.join(input.home, 'Downloads'), input.home];
  const folder =
    candidates.find((c): c is string => !!c && input.isDirectory(c) && !input.workspaceFolders.some((w) => inside(c, w))) ?? input.home;
  const day = input.now.toISOString().slice(0, 10);
  return path.join(folder, `agent-memory-${day}.jsonl`);
}
