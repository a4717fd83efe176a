/**
 * A memory's history as a timeline (docs/editing.md "History"): one entry per version, newest
 * first, saying what happened, who did it and when, in words. Pure: no `vscode` import
 * (historyView.ts shows the entries in a quick pick).
 */
import type { MemoryVersion } from '../../engine/protocol';
import { truncate } from '../../core/text/truncate';
import { humanDate, relativeTime } from '../../core/text/timeWords';

export interface TimelineEntry {
  version: number;
  current: boolean;
  /** "Version 3 · Edited content and tags" */
  label: string;
  /** "by you · 2 hours ago" */
  description: string;
  /** The version's text, one line. */
  detail: string;
  /** The exact time (tooltip, screen readers). */
  when: string;
}

function who(changedBy: string | null): string {
  if (!changedBy || changedBy === 'user') return 'by you';
  if (changedBy === 'lifecycle') return 'automatically';
  return `by ${changedBy}`;
}

function listed(fields: string[]): string {
  if (fields.length <= 1) return fields.join('');
  return `${fields.slice(0, -1).join(', ')} and ${fields.at(-1)!}`;
}

/** What a version's change was, as a short sentence. */
export function eventText(v: MemoryVersion): string {
  const restored = /^restored version (\d+)$/.exec(v.reason ?? '');
  if (restored) return `Restored version ${restored[1]!}`;
  switch (v.event) {
    case 'created':
      return 'Created';
    case 'updated':
      return v.changed.length ? `Edited ${listed(v.changed)}` : 'Edited';
    case 'merged':
      return 'Merged with a similar memory';
    case 'merged_into':
      return 'Merged into another memory';
    case 'deleted':
      return 'Deleted';
    case 'expired':
      return 'Expired';
    case 'restored':
      return 'Restored after being deleted';
    case 'current':
      return 'Current version (earlier history was cleaned up)';
    default:
      return v.event.charAt(0).toUpperCase() + v.event.slice(1).replace(/_/g, ' ');
  }
}

export function timelineEntries(versions: MemoryVersion[], currentVersion: number, now: Date = new Date()): TimelineEntry[] {
  return [...versions]
    .sort((a, b) => b.version - a.version)
    .map((v) => ({
      version: v.version,
      current: v.version === currentVersion,
      label: `Version ${v.version} · ${eventText(v)}`,
      description: `${v.version === currentVersion ? 'current · ' : ''}${who(v.changedBy)} · ${relativeTime(v.createdAt, now)}`,
      detail: truncate([v.title, v.content].filter(Boolean).join(' — ').replace(/\s+/g, ' '), 120),
      when: humanDate(v.createdAt),
    }));
}
