/**
 * Shows configuration problems where people look: agent.yaml problems in the Problems panel at
 * the value's range (squiggles in the file), a note where a VS Code setting overrides a file
 * value, ONE notification per change of the problem set ("Open agent.yaml" / "Show Problems"),
 * a warning state on the status bar item, and each problem logged once. Re-checked when
 * agent.yaml is saved, created or deleted and when an agentMemory setting changes; reloads of
 * the engine do not repeat anything.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CONFIG_FILE_CANDIDATES, findConfigFile } from '../../core/config';
import { actionable, configProblems, notificationText, ProblemReporter, type ConfigProblem } from './configProblems';
import type { Logger } from '../host/log';
import { readSettingOverrides } from './settings';
import { SETTINGS_SECTION } from './settingsSchema';

export const DIAGNOSTIC_SOURCE = 'Agent Memory';

export interface ConfigProblemSummary {
  errors: number;
  warnings: number;
  /** agent.yaml in use, if any. */
  file?: string;
}

const SEVERITY: Record<ConfigProblem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

function toDiagnostic(p: ConfigProblem): vscode.Diagnostic {
  const r = p.range!;
  const d = new vscode.Diagnostic(new vscode.Range(r.line, r.column, r.endLine, r.endColumn), p.message, SEVERITY[p.severity]);
  d.source = DIAGNOSTIC_SOURCE;
  if (p.key) d.code = p.key;
  return d;
}

/** Time for a new file watcher to go live (a change before that reaches no listener). */
export const WATCHER_SETTLE_MS = 5000;

export class ConfigDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('agentMemory.config');
  private readonly subs: vscode.Disposable[] = [this.collection];
  private readonly reporter = new ProblemReporter();
  private running: Promise<ConfigProblemSummary> | undefined;
  private again = false;
  private last: ConfigProblemSummary = { errors: 0, warnings: 0 };

  constructor(
    private readonly folder: vscode.Uri | undefined,
    private readonly log: Logger,
    private readonly onSummary: (s: ConfigProblemSummary) => void,
  ) {}

  /** Starts watching; the first check runs at once. */
  start(): this {
    if (this.folder) {
      const pattern = new vscode.RelativePattern(this.folder, `{${CONFIG_FILE_CANDIDATES.join(',')}}`);
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      for (const ev of [watcher.onDidChange, watcher.onDidCreate, watcher.onDidDelete]) this.subs.push(ev(() => void this.check()));
      this.subs.push(watcher);
    }
    this.subs.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTINGS_SECTION)) void this.check();
      }),
    );
    void this.check();
    // Once more when the watcher has surely gone live: a file written before that reached no listener.
    const settle = setTimeout(() => void this.check(), WATCHER_SETTLE_MS);
    this.subs.push({ dispose: () => clearTimeout(settle) });
    return this;
  }

  get summary(): ConfigProblemSummary {
    return this.last;
  }

  /** Re-reads agent.yaml and the settings (calls that arrive during a check run it once more). */
  check(): Promise<ConfigProblemSummary> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.checkOnce().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.check();
      }
    });
    return this.running;
  }

  private async checkOnce(): Promise<ConfigProblemSummary> {
    const file = this.folder ? await findConfigFile(this.folder.fsPath) : undefined;
    let text = '';
    if (file) {
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file)));
      } catch (e) {
        this.log.error(`cannot read ${file}`, e);
      }
    }
    const problems = configProblems(text, file ? path.basename(file) : 'agent.yaml', readSettingOverrides());
    this.collection.clear();
    if (file) this.collection.set(vscode.Uri.file(file), problems.filter((p) => p.range).map(toDiagnostic));
    const shown = actionable(problems);
    const { toLog, notify } = this.reporter.report(problems);
    for (const p of toLog) {
      this.log.info(`config ${p.severity}: ${p.message}${p.range && file ? ` (${file}:${p.range.line + 1}:${p.range.column + 1})` : ''}`);
    }
    this.last = {
      errors: shown.filter((p) => p.severity === 'error').length,
      warnings: shown.filter((p) => p.severity === 'warning').length,
      ...(file ? { file } : {}),
    };
    this.onSummary(this.last);
    if (notify) this.notify(file, shown);
    return this.last;
  }

  /** The one notification of a new set of problems, with the ways to see them. */
  private notify(file: string | undefined, shown: readonly ConfigProblem[]): void {
    const actions = [...(file ? ['Open agent.yaml'] : ['Open Settings']), 'Show Problems'];
    const text = notificationText(file ? path.basename(file) : 'the configuration', shown);
    void vscode.window.showWarningMessage(text, ...actions).then((pick) => {
      if (pick === 'Open agent.yaml' && file) void openAt(file, shown.find((p) => p.range)?.range);
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION);
      if (pick === 'Show Problems') void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

async function openAt(file: string, range: ConfigProblem['range']): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const selection = range ? new vscode.Range(range.line, range.column, range.endLine, range.endColumn) : undefined;
  await vscode.window.showTextDocument(doc, selection ? { selection } : {});
}
