/** The change feed and the webhook outbox (docs/changes.md). */
export * from './types';
export { changeOfHistory, eventsSince, isChangeType, latestCursor, writeChangeEvent, type ChangeInput } from './events';
export * from './outbox';
