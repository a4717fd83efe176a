/**
 * What "Add Memory…" asks, with its defaults: the text, then type, tags, lifetime, importance,
 * scope and title. Each answer has a default, so "Save now" is possible at any step. A memory
 * a person adds on purpose is permanent unless they choose a lifetime (README "Use").
 * Pure: no `vscode` import (addMemoryInput.ts shows the steps).
 */
import { MEMORY_TYPES, type CreateMemoryInput } from '../../core/memory/types';
import { truncate } from '../../core/text/truncate';
import { plural } from '../../core/text/plural';
import { typeHeading } from '../../present/memoryRowText';

export interface AddMemoryDraft {
  content: string;
  type: string;
  tags: string[];
  /** null = permanent; absent = the engine's lifecycle default (programmatic saves). */
  ttlSeconds?: number | null;
  importance: number;
  scope: 'project' | 'global';
  title: string;
  /**
   * The person answered the title step (Enter, or Save now there): `title` is theirs, even empty.
   * Otherwise an empty title becomes the one that step proposes (suggestTitle).
   */
  titleChosen?: boolean;
  /** Where the text came from (a file and line for Add Selection). */
  source?: string;
}

export const DAY = 86_400;

export const LIFETIMES: readonly { label: string; ttlSeconds: number | null; detail: string }[] = [
  { label: 'Permanent', ttlSeconds: null, detail: 'Kept until you delete it (the default for memories you add).' },
  { label: '30 days', ttlSeconds: 30 * DAY, detail: 'Short-term: expires after 30 days unless it is used often or promoted.' },
  { label: '7 days', ttlSeconds: 7 * DAY, detail: 'Short-term: expires after a week unless it is used often or promoted.' },
  { label: '1 day', ttlSeconds: DAY, detail: 'Short-term: a note for today.' },
];

export const IMPORTANCE_LEVELS: readonly { label: string; importance: number; detail: string }[] = [
  { label: 'Normal', importance: 0.5, detail: 'Ranked like most memories.' },
  // 0.7, not 0.8: memory.promote_importance (default 0.8) would make it permanent whatever lifetime was picked.
  { label: 'High', importance: 0.7, detail: 'Ranked above others of equal relevance.' },
  { label: 'Low', importance: 0.3, detail: 'A detail: ranked below others of equal relevance.' },
];

export const SCOPES: readonly { label: string; scope: 'project' | 'global'; detail: string }[] = [
  { label: 'This project', scope: 'project', detail: 'Shared by every clone, worktree and window of this project.' },
  { label: 'Global', scope: 'global', detail: 'For every project (your preferences, habits that are not project-specific).' },
];

/** The types a person picks from (the pipeline's and document types are not offered). */
export const PICKABLE_TYPES: readonly string[] = MEMORY_TYPES.filter((t) => t !== 'document_chunk');

/** What each type is for, one line under its name in the type step. */
const TYPE_DETAILS: Readonly<Record<string, string>> = {
  general: 'Anything worth remembering about this project.',
  solution: 'How a problem was solved.',
  problem: 'A known problem or pitfall.',
  code_pattern: 'How code is written here, best with an example.',
  fix: 'A change that fixed a bug.',
  error: 'An error message and what it means.',
  workflow: 'The steps to follow for a task.',
  decision: 'A choice that was made, and why.',
  fact: 'A plain fact about the project or its setup.',
  preference: 'How you like things done.',
  procedural: 'How something is done.',
  semantic: 'What something is or means.',
};

/** The type step's choices: each type in words ("Code pattern"), its id as the value. */
export function typeChoices(): { label: string; value: string; detail: string }[] {
  return PICKABLE_TYPES.map((t) => ({ label: typeHeading(t), value: t, detail: TYPE_DETAILS[t] ?? '' }));
}

export function defaultDraft(content: string, extra: Partial<AddMemoryDraft> = {}): AddMemoryDraft {
  return { content, type: 'general', tags: [], ttlSeconds: null, importance: 0.5, scope: 'project', title: '', ...extra };
}

/** "db, Staging  ops,db" → ["db", "staging", "ops"]: comma- or space-separated, lower case, no repeats. */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const t of text.split(/[,\s]+/)) {
    const tag = t.trim().replace(/^#/, '').toLowerCase();
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

/** A title suggestion: the first sentence or line, at most 80 characters. */
export function suggestTitle(content: string): string {
  const first = content.trim().split(/\n|(?<=[.!?])\s/)[0] ?? '';
  return truncate(first, 80);
}

export function validateContent(text: string): string | undefined {
  return text.trim().length < 10 ? 'At least 10 characters' : undefined;
}

/**
 * The memory.create parameters of a draft. Without a title of the person's own (Save now before
 * the title step, a command given only text), the title is the one the title step proposes.
 */
export function createParams(d: AddMemoryDraft): CreateMemoryInput {
  const title = d.title.trim() || (d.titleChosen ? '' : suggestTitle(d.content));
  return {
    content: d.content,
    type: d.type,
    scope: d.scope,
    importance: d.importance,
    ...(d.ttlSeconds !== undefined ? { ttlSeconds: d.ttlSeconds } : {}),
    ...(d.tags.length ? { tags: d.tags } : {}),
    ...(title ? { title } : {}),
    ...(d.source ? { source: d.source } : {}),
  };
}

/** One line saying what will be saved (shown on every step). */
export function describeDraft(d: AddMemoryDraft): string {
  const life =
    LIFETIMES.find((l) => l.ttlSeconds === d.ttlSeconds)?.label.toLowerCase() ?? plural(Math.round((d.ttlSeconds ?? 0) / DAY), 'day');
  const imp = IMPORTANCE_LEVELS.find((l) => l.importance === d.importance)?.label.toLowerCase() ?? String(d.importance);
  const tags = d.tags.length ? d.tags.map((t) => `#${t}`).join(' ') : 'no tags';
  return `${typeHeading(d.type).toLowerCase()} · ${tags} · ${life} · ${imp} importance · ${d.scope === 'global' ? 'global' : 'this project'}`;
}
