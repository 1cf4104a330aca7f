/**
 * Webhook endpoint schemas (docs/api.md section 7): the create and update bodies, the public
 * object (credentials without their secret; the signing secret only in the create response) and
 * the stored row, with their types derived from them. The bodies list the event types an endpoint
 * may subscribe to, which only the registry of every resource knows: they are built by
 * `webhookEndpointBodies(eventTypes)`, which the API calls with the registry's list.
 */
import { LATEST_WEBHOOK_VERSION, WEBHOOK_VERSION_NAMES } from '@dms/webhook-delivery';
import {
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  timestampSchema,
  type Static,
} from '../kernel/schemas.js';

/** `enabled_events` entry selecting every event type; only valid alone. */
export const ALL_EVENTS = '*';

const url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const targetUrl = url('Address receiving deliveries (absolute https URL).');

/** OAuth 2.0 client credentials as sent by the tenant (RFC 6749 section 4.4). */
export const OAuth2Credentials = Type.Object(
  {
    token_url: url('Token endpoint of the receiver (absolute https URL).'),
    client_id: textSchema(255, 'Client identifier at the receiver.'),
    client_secret: Type.String({ minLength: 1, maxLength: 1024, writeOnly: true, description: 'Client secret; stored encrypted, never returned.' }),
  },
  {
    additionalProperties: false,
    description:
      'OAuth 2.0 client credentials (RFC 6749 section 4.4): before delivering, the dispatcher obtains a token from `token_url` (HTTP Basic client authentication) and sends it as `Authorization: Bearer`.',
  },
);

const credentials = Type.Object({ oauth2: OAuth2Credentials }, { additionalProperties: false, description: 'Authentication of deliveries. Omit for none.' });

const version = Type.String({
  maxLength: 9,
  description: `Event shape delivered: \`v\` + a supported date as YYYYMMDD (supported: ${WEBHOOK_VERSION_NAMES.join(', ')}; default the newest).`,
  examples: [LATEST_WEBHOOK_VERSION],
});

/**
 * The create and update bodies of endpoints.
 * @param eventTypes every event type of the platform; `webhook.test` is left out (it goes only to
 *   the endpoint tested)
 * @returns `{create, update}`: `POST /webhooks` and `PATCH /webhooks/{id}` (`credentials: null`
 *   removes them)
 */
export function webhookEndpointBodies(eventTypes: readonly string[]) {
  const enabledEvents = Type.Array(StringEnum([ALL_EVENTS, ...eventTypes.filter((t) => t !== 'webhook.test')]), {
    minItems: 1,
    // Each type at most once (uniqueItems), so there cannot be more than there are types.
    maxItems: eventTypes.length + 1,
    uniqueItems: true,
    description: 'Event types to deliver, or exactly `["*"]` for all.',
  });
  const create = Type.Object(
    {
      url: targetUrl,
      enabled: Type.Optional(Type.Boolean({ description: 'Whether events are delivered (default true); a disabled endpoint receives nothing until enabled.' })),
      enabled_events: enabledEvents,
      version: Type.Optional(version),
      credentials: Type.Optional(credentials),
      metadata: Type.Optional(metadataSchema),
    },
    { additionalProperties: false },
  );
  const update = Type.Object(
    {
      url: Type.Optional(targetUrl),
      enabled: Type.Optional(Type.Boolean({ description: 'Whether events are delivered; set true to re-enable an endpoint disabled after failing.' })),
      enabled_events: Type.Optional(enabledEvents),
      version: Type.Optional(version),
      credentials: Type.Optional(Nullable(credentials, { description: 'New credentials, or null to remove them.' })),
      metadata: Type.Optional(metadataPatchSchema),
    },
    { additionalProperties: false, minProperties: 1 },
  );
  return { create, update };
}

/** The public endpoint object; `signing_secret` only in the create response. */
export const WebhookEndpoint = Type.Object({
  id: objectId('wh'),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  enabled: Type.Boolean({ description: 'False when turned off by the tenant or after failing a whole retry schedule.' }),
  enabled_events: Type.Array(Type.String()),
  version: Type.String(),
  credentials: Nullable(Type.Object({ oauth2: Type.Object({ token_url: Type.String(), client_id: Type.String() }) })),
  signing_secret: Type.Optional(
    Type.String({
      description: 'Only in the create response: the `whsec_` secret that signs deliveries (Standard Webhooks). Store it; it is not shown again.',
    }),
  ),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** `POST /webhooks/{id}/recover` body (docs/api.md section 11). */
export const WebhookRecoverBody = Type.Object(
  { since: timestampSchema('Re-queue the failed and canceled deliveries created at or after this time (ISO 8601).') },
  { additionalProperties: false },
);

/** `POST /webhooks/{id}/recover` answer: how many deliveries were queued again. */
export const WebhookRecovery = Type.Object({
  object: Type.Literal('webhook_recovery'),
  endpoint: objectId('wh'),
  since: Type.String({ format: 'date-time' }),
  requeued: Type.Integer({ minimum: 0, description: 'Deliveries queued again, each due now with a fresh retry schedule.' }),
});

/** A row of `webhook_endpoints`; the signing secret and OAuth client secret are stored sealed (libs/secrets). */
export const WebhookEndpointRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  url: Type.String(),
  version: Type.String(),
  enabled: Type.Boolean(),
  enabled_events: Type.Array(Type.String()),
  metadata: metadataSchema,
  signing_secret_ciphertext: Type.String(),
  previous_signing_secret_ciphertext: Nullable(Type.String()),
  previous_signing_secret_expires_at: Nullable(DateColumn),
  oauth2_token_url: Nullable(Type.String()),
  oauth2_client_id: Nullable(Type.String()),
  oauth2_client_secret_ciphertext: Nullable(Type.String()),
  credentials_version: Type.Number(),
  last_success_at: Nullable(DateColumn),
  disabled_at: Nullable(DateColumn),
  deleted_at: Nullable(DateColumn),
});

export type OAuth2Credentials = Static<typeof OAuth2Credentials>;
type Bodies = ReturnType<typeof webhookEndpointBodies>;
export type WebhookEndpointCreate = Static<Bodies['create']>;
export type WebhookEndpointUpdate = Static<Bodies['update']>;
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;
export type WebhookEndpointRow = Static<typeof WebhookEndpointRow>;
export type WebhookRecoverBody = Static<typeof WebhookRecoverBody>;
export type WebhookRecovery = Static<typeof WebhookRecovery>;
