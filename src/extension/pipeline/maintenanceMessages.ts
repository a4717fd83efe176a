/**
 * What "Re-embed All Memories" and "Rebuild Search Index" say when they are done, in correct
 * English ("1 memory", never "0 memories will be embedded again"). No vscode import (unit-tested).
 */
import { plural } from '../../core/text/plural';

export function reembedMessage(queued: number): string {
  return queued
    ? `${plural(queued, 'memory', 'memories')} will be embedded again in the background.`
    : 'Every memory already has its vector: nothing to embed again.';
}

export function reindexMessage(memories: number): string {
  return `Search index rebuilt (${plural(memories, 'memory', 'memories')}).`;
}
