/** Webhook deliveries of the change feed (docs/changes.md "Webhooks"). */
export * from './signing';
export * from './secrets';
export { postDelivery, MAX_REDIRECTS } from './send';
export { WebhookSender, deliveryBody, retryDelayMs, type DeliverySettings, type WebhookSenderOptions } from './worker';
export { syncConfiguredWebhooks, type WebhookSyncResult } from './sync';
