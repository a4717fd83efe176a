/**
 * A memory's remaining lifetime in words, the same on every surface that shows a memory (tree,
 * search results, recall, CLI): "expires in 3 days", "expires tomorrow", "expires in 5 hours";
 * nothing for a permanent memory (docs/lifecycle.md "Lifetimes"). The wording itself is
 * src/core/text/relativeTime.ts, shared with every other date people read.
 */
import { expiryText, relativeTime } from '../text/relativeTime';

/** "expires in 3 days" / "expires tomorrow" / "expired"; undefined for a permanent memory (no expiry) or an unreadable date. */
export function describeExpiry(expiresAt: string | null | undefined, now: Date = new Date()): string | undefined {
  if (!expiresAt) return undefined;
  const then = new Date(expiresAt);
  if (Number.isNaN(then.getTime())) return undefined;
  if (then.getTime() <= now.getTime()) return 'expired';
  return expiryText(then, now);
}

/** "2 hours ago", "yesterday", "3 days ago" for a past ISO time (the removed list's "when"). */
export function describeAgo(iso: string, now: Date = new Date()): string {
  return relativeTime(iso, now);
}
