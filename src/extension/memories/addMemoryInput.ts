/**
 * "Add Memory…" as one multi-step input (text → type → tags → lifetime → importance → scope →
 * title) with a back button, defaults on every step, and a "Save now" button from the second
 * step on that saves with the defaults of the steps not taken. Resolves with the draft to save,
 * or undefined when the person cancels.
 */
import * as vscode from 'vscode';
import {
  defaultDraft,
  describeDraft,
  IMPORTANCE_LEVELS,
  LIFETIMES,
  parseTags,
  SCOPES,
  suggestTitle,
  typeChoices,
  validateContent,
  type AddMemoryDraft,
} from './addMemorySteps';

export const SAVE_NOW_TOOLTIP = 'Save now (defaults for the rest)';
const SAVE_NOW: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('save'), tooltip: SAVE_NOW_TOOLTIP };

type Outcome = 'next' | 'back' | 'save' | 'cancel';

/** Back from the second step on (the first has nowhere to go back to: Add Selection starts at the type); Save now on every step. */
function stepButtons(step: number): vscode.QuickInputButton[] {
  return step > 1 ? [vscode.QuickInputButtons.Back, SAVE_NOW] : [SAVE_NOW];
}
type Step = (d: AddMemoryDraft, at: { step: number; total: number }) => Promise<Outcome>;

interface Choice<T> extends vscode.QuickPickItem {
  value: T;
}

/** Shows one QuickPick step; the current value is preselected. */
function pickStep<T>(title: string, items: Choice<T>[], current: T, apply: (d: AddMemoryDraft, v: T) => void): Step {
  return (d, at) =>
    new Promise<Outcome>((resolve) => {
      const qp = vscode.window.createQuickPick<Choice<T>>();
      qp.title = `Add Memory: ${title}`;
      qp.step = at.step;
      qp.totalSteps = at.total;
      qp.placeholder = describeDraft(d);
      qp.items = items;
      qp.activeItems = items.filter((i) => i.value === current);
      qp.buttons = stepButtons(at.step);
      qp.ignoreFocusOut = true;
      let done = false;
      const finish = (o: Outcome) => {
        if (!done) {
          done = true;
          resolve(o);
          qp.dispose();
        }
      };
      qp.onDidTriggerButton((b) => finish(b === vscode.QuickInputButtons.Back ? 'back' : 'save'));
      qp.onDidAccept(() => {
        const picked = qp.selectedItems[0] ?? qp.activeItems[0];
        if (picked) apply(d, picked.value);
        finish('next');
      });
      qp.onDidHide(() => finish('cancel'));
      qp.show();
    });
}

/** Shows one InputBox step. */
interface InputOptions {
  value: string;
  prompt: string;
  placeholder?: string;
  first?: boolean;
  validate?: (v: string) => string | undefined;
}

function inputStep(title: string, opts: InputOptions, apply: (d: AddMemoryDraft, v: string) => void): Step {
  return (d, at) =>
    new Promise<Outcome>((resolve) => {
      const box = vscode.window.createInputBox();
      box.title = `Add Memory: ${title}`;
      box.step = at.step;
      box.totalSteps = at.total;
      box.value = opts.value;
      box.prompt = opts.first ? opts.prompt : `${opts.prompt} — ${describeDraft(d)}`;
      box.placeholder = opts.placeholder;
      box.buttons = opts.first ? [] : stepButtons(at.step);
      box.ignoreFocusOut = true;
      let done = false;
      const finish = (o: Outcome) => {
        if (!done) {
          done = true;
          resolve(o);
          box.dispose();
        }
      };
      const invalid = () => opts.validate?.(box.value);
      box.onDidChangeValue(() => {
        box.validationMessage = invalid();
      });
      box.onDidTriggerButton((b) => {
        if (b === vscode.QuickInputButtons.Back) return finish('back');
        if (invalid()) return;
        apply(d, box.value);
        finish('save');
      });
      box.onDidAccept(() => {
        const problem = invalid();
        if (problem) {
          box.validationMessage = problem;
          return;
        }
        apply(d, box.value);
        finish('next');
      });
      box.onDidHide(() => finish('cancel'));
      box.show();
    });
}

function steps(d: AddMemoryDraft, askContent: boolean): (() => Step)[] {
  const list: (() => Step)[] = [];
  if (askContent) {
    list.push(() =>
      inputStep(
        'what should be remembered?',
        {
          value: d.content,
          first: true,
          prompt: 'What should be remembered about this project? (Enter: next step)',
          placeholder: 'e.g. We use pnpm; the staging database runs on port 5433.',
          validate: validateContent,
        },
        (x, v) => {
          x.content = v;
        },
      ),
    );
  }
  list.push(
    () =>
      pickStep('type', typeChoices(), d.type, (x, v) => {
        x.type = v;
      }),
    () =>
      inputStep(
        'tags',
        { value: d.tags.join(', '), prompt: 'Tags, comma-separated (may be empty)', placeholder: 'e.g. db, staging' },
        (x, v) => {
          x.tags = parseTags(v);
        },
      ),
    () =>
      pickStep(
        'lifetime',
        LIFETIMES.map((l) => ({ label: l.label, detail: l.detail, value: l.ttlSeconds })),
        d.ttlSeconds,
        (x, v) => {
          x.ttlSeconds = v;
        },
      ),
    () =>
      pickStep(
        'importance',
        IMPORTANCE_LEVELS.map((l) => ({ label: l.label, detail: l.detail, value: l.importance })),
        d.importance,
        (x, v) => {
          x.importance = v;
        },
      ),
    () =>
      pickStep(
        'scope',
        SCOPES.map((s) => ({ label: s.label, detail: s.detail, value: s.scope })),
        d.scope,
        (x, v) => {
          x.scope = v;
        },
      ),
    () =>
      inputStep(
        'title',
        { value: d.title || suggestTitle(d.content), prompt: 'Title (Enter saves)', placeholder: 'A short title' },
        (x, v) => {
          x.title = v;
          x.titleChosen = true; // cleared on purpose: no title
        },
      ),
  );
  return list;
}

/** Runs the steps; `content` given (Add Selection) skips the first one. */
export async function askNewMemory(content?: string, extra: Partial<AddMemoryDraft> = {}): Promise<AddMemoryDraft | undefined> {
  const draft = defaultDraft(content ?? '', extra);
  const list = steps(draft, content === undefined);
  for (let i = 0; i < list.length;) {
    const outcome = await list[i]!()(draft, { step: i + 1, total: list.length });
    if (outcome === 'cancel') return undefined;
    if (outcome === 'save') break;
    i = outcome === 'back' ? Math.max(0, i - 1) : i + 1;
  }
  return draft; // a title step not taken: createParams proposes the title
}
