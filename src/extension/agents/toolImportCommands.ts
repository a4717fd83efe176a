/**
 * "Import Memories from Other Tools…" and "Export as AGENTS.md Section" (docs/import-from-tools.md):
 * the same plan, import and undo as `agent-memory import-from` / `agents-md` (src/cli/importFrom.ts),
 * in the window. The plan opens as a Markdown document beside a modal that asks before anything
 * is written; the outcome's notification has Undo, which takes the whole import back (the same
 * record `import-from --undo` uses).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import { resolveStoreHome } from '../../engine/storeLocation';
import { projectStoreDir } from '../../engine/socket/endpoint';
import { plural } from '../../core/text/plural';
import {
  agentsMdFor,
  applyImport,
  describeImported,
  describePlan,
  planImport,
  planWork,
  saveLastImport,
  shownPath,
  undoLastImport,
  writeAgentsMd,
} from '../../cli/importFrom';
import { SETTINGS_SECTION } from '../config/settingsSchema';

type Register = <A extends unknown[], R>(id: string, what: string, fn: (...args: A) => Promise<R>) => void;

export const IMPORT_FROM_TOOLS_COMMAND = 'agentMemory.importFromTools';
export const EXPORT_AGENTS_MD_COMMAND = 'agentMemory.exportAgentsMd';

/** Options a caller (a test, another command) may pass: confirm skips the modal question. */
interface ImportOptions {
  confirm?: boolean;
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

async function storeDir(workspace: string): Promise<string> {
  const home = resolveStoreHome(vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('storeHome'));
  return projectStoreDir({ home, workspaceRoot: path.resolve(workspace) });
}

async function importFromTools(engine: EngineClient, vsCodeUser: string, opts: ImportOptions = {}) {
  const workspace = workspaceRoot();
  if (!workspace) {
    void vscode.window.showInformationMessage('Open a folder first: the memories of other tools are found in the project folder.');
    return undefined;
  }
  const home = os.homedir();
  const shown = shownPath(workspace, home);
  const plan = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Looking for the memories of other tools…' },
    () => planImport(engine, workspace, home, [vsCodeUser]),
  );
  const work = planWork(plan);
  if (!work) {
    void vscode.window.showInformationMessage(
      plan.files.length
        ? `Nothing to import: the ${plural(plan.files.length, 'file')} of other tools hold nothing new (duplicates, secrets and what was imported before are left out).`
        : 'No memory files of other tools were found for this project or in your home folder.',
    );
    return { plan, imported: undefined };
  }
  const doc = await vscode.workspace.openTextDocument({
    language: 'markdown',
    content: `# Import from other tools\n\n${describePlan(plan, shown)}\n`,
  });
  await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
  if (!opts.confirm) {
    const answer = await vscode.window.showInformationMessage(
      `Import ${plural(work, 'change')} from ${plural(plan.files.length, 'file')} of other tools?`,
      {
        modal: true,
        detail: 'The plan is open beside: what becomes which memory, duplicates and secrets left out. One Undo takes it all back.',
      },
      'Import',
    );
    if (answer !== 'Import') return { plan, imported: undefined };
  }
  const last = await applyImport(engine, plan, shown);
  const dir = await storeDir(workspace);
  saveLastImport(dir, last);
  void vscode.window.showInformationMessage(describeImported(last, plan.files.length), 'Undo').then(async (pick) => {
    if (pick !== 'Undo') return;
    const r = await undoLastImport(engine, dir);
    if (r) void vscode.window.showInformationMessage(`The import is undone: ${plural(r.removed, 'memory', 'memories')} removed.`);
  });
  return { plan, imported: last };
}

async function exportAgentsMd(engine: EngineClient) {
  const workspace = workspaceRoot();
  if (!workspace) {
    void vscode.window.showInformationMessage('Open a folder first: the section is written into its AGENTS.md.');
    return undefined;
  }
  const { section, memories } = await agentsMdFor(engine);
  const w = writeAgentsMd(workspace, section);
  await vscode.window.showTextDocument(vscode.Uri.file(w.file), { preview: true });
  void vscode.window.showInformationMessage(
    w.changed
      ? `AGENTS.md ${w.created ? 'written' : 'updated'} with ${plural(memories, 'memory', 'memories')}; the rest of the file is as it was.`
      : `AGENTS.md already holds these ${plural(memories, 'memory', 'memories')}.`,
  );
  return { ...w, memories };
}

/** `vsCodeUser`: this VS Code's `User` folder, where its memory tool keeps user and repository memory. */
export function registerToolImportCommands(run: Register, engine: EngineClient, vsCodeUser: string): void {
  run(IMPORT_FROM_TOOLS_COMMAND, 'import from other tools', (opts?: ImportOptions) => importFromTools(engine, vsCodeUser, opts));
  run(EXPORT_AGENTS_MD_COMMAND, 'export as an AGENTS.md section', () => exportAgentsMd(engine));
}
