/**
 * What a person is told about deleting, expiry and restoring (docs/lifecycle.md "Expired and
 * deleted: never silent, restorable"): where a deleted memory goes and for how long it can be
 * restored, that memories expired, and how long a restored memory is kept. Pure: no `vscode`.
 */
import type { MemoryRecord, RemovedMemory } from '../../engine/protocol';
import { describeExpiry, durationText, spanInWords } from '../../core/text/timeWords';
import { plural } from '../../core/text/plural';
import { memoryName } from '../memories/memoryFsNames';

const VIEW = 'Recently Deleted and Expired';

/** The memory's title or first words, without a closing full stop (it is quoted inside a sentence). */
const nameOf = (title: string, text: string) => memoryName(title, text);

/** The delete dialog's detail: where the memory goes and how long it can be restored from there. */
export function deleteDetail(restorableForMs: number): string {
  return `It moves to ${VIEW} (Agent Memory sidebar), where it can be restored for ${spanInWords(restorableForMs)}.`;
}

/** Memories just expired (most recent first): the one named, or how many, and until when they can be restored. */
export function expiredNotice(items: readonly RemovedMemory[]): string {
  const first = items[0];
  if (!first) return '';
  const window = spanInWords(Date.parse(first.purgeAt) - Date.parse(first.removedAt));
  if (items.length === 1) {
    const name = nameOf(first.memory.title, first.memory.preview);
    return `A short-term memory expired: “${name}”. Restore it from ${VIEW} within ${window} if you still need it.`;
  }
  return `${plural(items.length, 'short-term memory', 'short-term memories')} expired. Restore them from ${VIEW} within ${window} if you still need them.`;
}

/**
 * After a restore: how long the memory is kept. An expired one gets a fresh lifetime (at least a
 * day, docs/lifecycle.md), which the person is told and can turn into permanent.
 */
export function restoredMessage(
  m: Pick<MemoryRecord, 'title' | 'content' | 'ttlSeconds' | 'expiresAt'>,
  wasExpired: boolean,
  now = new Date(),
): string {
  const name = nameOf(m.title, m.content);
  if (!m.expiresAt) return `Memory restored: “${name}” (permanent).`;
  const expiry = describeExpiry(m.expiresAt, now) ?? 'expired';
  if (!wasExpired || m.ttlSeconds === null) return `Memory restored: “${name}” (short-term: ${expiry}).`;
  const again = expiry.replace(/^expires /, 'expires again ');
  return `Memory restored for ${durationText(m.ttlSeconds)}: “${name}”. It was short-term and had expired; it ${again} unless it is used. Keep it permanently?`;
}
