/** The change types of the change feed a webhook can subscribe to (src/core/changes, docs/changes.md). */
export const CHANGE_TYPES = [
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'memory.merged',
  'memory.expired',
  'memory.restored',
  'memory.promoted',
] as const;

/** One webhook of `webhooks.endpoints` (checked by webhooks.ts). */
export interface WebhookEndpointConfig {
  name: string;
  url: string;
  /** The change types it receives; empty: all of them. */
  events: string[];
}

/** At most this many webhooks per project. */
export const MAX_WEBHOOKS = 20;

/** What `webhooks.endpoints` accepts, for messages and the configuration reference. */
export function describeWebhooksAllowed(): string {
  return `a list of at most ${MAX_WEBHOOKS} webhooks, each a mapping with name (letters, digits, . _ -), url (http:// or https://) and optionally events: some of ${CHANGE_TYPES.join(', ')} (default: all)`;
}

/** The JSON schema of the `webhooks.endpoints` list (VS Code settings and agent.yaml's schema). */
export function webhooksJsonSchema(): Record<string, unknown> {
  return {
    type: 'array',
    maxItems: MAX_WEBHOOKS,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'url'],
      properties: {
        name: {
          type: 'string',
          pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
          description: 'Names the webhook; its signing secret is kept under this name.',
        },
        url: { type: 'string', pattern: '^https?://', description: 'Where deliveries are POSTed (http:// or https://).' },
        events: {
          type: 'array',
          items: { type: 'string', enum: [...CHANGE_TYPES] },
          uniqueItems: true,
          description: 'The change types it receives (default: all).',
        },
      },
    },
  };
}
