/**
 * Webhook endpoints (CONTRACT section 7, SPEC.md 2.2): where a tenant wants its events delivered,
 * which events, in which version's shape, and optionally the OAuth 2.0 client credentials the
 * dispatcher uses to authorise deliveries.
 *
 * Secrets (the `whsec_` signing secret, the OAuth client secret) are sealed with the SecretBox
 * before they reach the database and never appear in a response, except the signing secret in
 * the create response, once. Target URLs pass the SSRF guard (@dms/ssrf) on create and update.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import type { SecretBox } from '@dms/secrets';
import { checkTargetUrl, type TargetPolicy } from '@dms/ssrf';
import { LATEST_WEBHOOK_VERSION, WEBHOOK_VERSION_NAMES, webhookVersionProblem } from '@dms/webhook-delivery';
import { EVENT_TYPES } from '../db/outbox.js';
import { findOwned } from '../db/scoped.js';
import type { JsonSchema } from '../http/validation.js';
import { mergeMetadata } from './metadata.js';
import { iso, metadataPatchSchema, metadataSchema, textSchema, timestampProperties } from './schema-parts.js';

/** `enabled_events` entry selecting every event type; only valid alone. */
export const ALL_EVENTS = '*';

/** Bytes of entropy in a signing secret (Standard Webhooks: 24 to 64). */
const SIGNING_SECRET_BYTES = 32;

/** A row of `webhook_endpoints`; the signing secret and OAuth client secret are stored sealed (libs/secrets). */
export interface WebhookEndpointRow {
  id: string;
  seq: number;
  tenant_id: string;
  url: string;
  version: string;
  enabled: boolean;
  enabled_events: string[];
  metadata: Record<string, string>;
  signing_secret_ciphertext: string;
  oauth2_token_url: string | null;
  oauth2_client_id: string | null;
  oauth2_client_secret_ciphertext: string | null;
  credentials_version: number;
  last_success_at: Date | null;
  disabled_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The public endpoint object: credentials without their secret. */
export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled: boolean;
  enabled_events: string[];
  version: string;
  credentials: { oauth2: { token_url: string; client_id: string } } | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

/** OAuth 2.0 client credentials as sent by the tenant (RFC 6749 section 4.4). */
export interface OAuth2Credentials {
  token_url: string;
  client_id: string;
  client_secret: string;
}

/** A validated create body. */
export interface WebhookCreateInput {
  url: string;
  enabled_events: string[];
  version?: string;
  credentials?: { oauth2: OAuth2Credentials };
  metadata?: Record<string, string>;
}

/** A validated update body. */
export interface WebhookUpdateInput {
  url?: string;
  enabled?: boolean;
  enabled_events?: string[];
  version?: string;
  credentials?: { oauth2: OAuth2Credentials } | null;
  metadata?: Record<string, string>;
}

const urlSchema = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 2048, description });

const credentialsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['oauth2'],
  description: 'Authentication of deliveries. Omit for none.',
  properties: {
    oauth2: {
      type: 'object',
      additionalProperties: false,
      required: ['token_url', 'client_id', 'client_secret'],
      description:
        'OAuth 2.0 client credentials (RFC 6749 section 4.4): before delivering, the dispatcher obtains a token from `token_url` (HTTP Basic client authentication) and sends it as `Authorization: Bearer`.',
      properties: {
        token_url: urlSchema('Token endpoint of the receiver (absolute https URL).'),
        client_id: textSchema(255, 'Client identifier at the receiver.'),
        client_secret: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true, description: 'Client secret; stored encrypted, never returned.' },
      },
    },
  },
};

const enabledEventsSchema: JsonSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [ALL_EVENTS, ...EVENT_TYPES] },
  description: 'Event types to deliver, or exactly `["*"]` for all.',
};

const versionSchema: JsonSchema = {
  type: 'string',
  description: `Event shape delivered: \`v\` + a supported date as YYYYMMDD (supported: ${WEBHOOK_VERSION_NAMES.join(', ')}; default the newest).`,
  examples: [LATEST_WEBHOOK_VERSION],
};

/** JSON Schemas of the endpoint resource (request bodies and the object), shared with OpenAPI. */
export const webhookSchemas: { create: JsonSchema; update: JsonSchema; object: JsonSchema } = {
  create: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'enabled_events'],
    properties: {
      url: urlSchema('Address receiving deliveries (absolute https URL).'),
      enabled_events: enabledEventsSchema,
      version: versionSchema,
      credentials: credentialsSchema,
      metadata: metadataSchema,
    },
  },
  update: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      url: urlSchema('Address receiving deliveries (absolute https URL).'),
      enabled: { type: 'boolean', description: 'Whether events are delivered; set true to re-enable an endpoint disabled after failing.' },
      enabled_events: enabledEventsSchema,
      version: versionSchema,
      credentials: { ...credentialsSchema, type: ['object', 'null'], description: 'New credentials, or null to remove them.' },
      metadata: metadataPatchSchema,
    },
  },
  object: {
    type: 'object',
    required: ['id', 'object', 'url', 'enabled', 'enabled_events', 'version', 'credentials', 'metadata', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['wh_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'webhook_endpoint' },
      url: { type: 'string' },
      enabled: { type: 'boolean', description: 'False when turned off by the tenant or after failing a whole retry schedule.' },
      enabled_events: { type: 'array', items: { type: 'string' } },
      version: { type: 'string' },
      credentials: {
        type: ['object', 'null'],
        properties: {
          oauth2: { type: 'object', required: ['token_url', 'client_id'], properties: { token_url: { type: 'string' }, client_id: { type: 'string' } } },
        },
      },
      signing_secret: {
        type: 'string',
        description: 'Only in the create response: the `whsec_` secret that signs deliveries (Standard Webhooks). Store it; it is not shown again.',
      },
      metadata: metadataSchema,
      ...timestampProperties,
    },
  },
};

/** Maps a row to the public object (no secret of any kind). */
export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled: row.enabled,
    enabled_events: row.enabled_events,
    version: row.version,
    credentials:
      row.oauth2_token_url && row.oauth2_client_id ? { oauth2: { token_url: row.oauth2_token_url, client_id: row.oauth2_client_id } } : null,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
function newSigningSecret(): string {
  return `whsec_${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;
}

function invalid(param: string, problem: string): ApiError {
  const message = `${param} ${problem}`;
  return new ApiError('validation_failed', message, { param, errors: [{ param, message }] });
}

/**
 * Checks what JSON Schema cannot: `*` only alone, a real and supported version, and target URLs
 * (scheme, and unless private targets are allowed, hosts resolving to public addresses only).
 * @throws ApiError 400 `validation_failed` naming the field
 */
async function checkSemantics(input: WebhookUpdateInput, policy: TargetPolicy): Promise<void> {
  if (input.enabled_events && input.enabled_events.includes(ALL_EVENTS) && input.enabled_events.length > 1) {
    throw invalid('enabled_events', 'must be exactly ["*"] to select all events, or a list of event types without "*"');
  }
  if (input.version !== undefined) {
    const problem = webhookVersionProblem(input.version);
    if (problem) throw invalid('version', problem);
  }
  const urls: Array<[string, string | undefined]> = [
    ['url', input.url],
    ['credentials.oauth2.token_url', input.credentials?.oauth2.token_url],
  ];
  for (const [param, value] of urls) {
    if (value === undefined) continue;
    const problem = await checkTargetUrl(value, policy);
    if (problem) throw invalid(param, problem);
  }
}

function credentialColumns(box: SecretBox, credentials: { oauth2: OAuth2Credentials } | null | undefined) {
  const oauth2 = credentials?.oauth2;
  return {
    oauth2_token_url: oauth2?.token_url ?? null,
    oauth2_client_id: oauth2?.client_id ?? null,
    oauth2_client_secret_ciphertext: oauth2 ? box.seal(oauth2.client_secret) : null,
  };
}

/**
 * Registers an endpoint.
 * @returns the endpoint and its signing secret (the only time the secret leaves the service)
 * @throws ApiError 400 `validation_failed` for semantic problems and refused targets
 */
export async function createWebhookEndpoint(
  db: Knex,
  box: SecretBox,
  policy: TargetPolicy,
  tenantId: string,
  input: WebhookCreateInput,
): Promise<WebhookEndpoint & { signing_secret: string }> {
  await checkSemantics(input, policy);
  const signingSecret = newSigningSecret();
  const [row] = await db('webhook_endpoints')
    .insert({
      id: newId('wh'),
      tenant_id: tenantId,
      url: input.url,
      version: input.version ?? LATEST_WEBHOOK_VERSION,
      enabled: true,
      enabled_events: input.enabled_events,
      metadata: JSON.stringify(input.metadata ?? {}),
      signing_secret_ciphertext: box.seal(signingSecret),
      ...credentialColumns(box, input.credentials),
    })
    .returning('*');
  return { ...toWebhookEndpoint(row as WebhookEndpointRow), signing_secret: signingSecret };
}

/**
 * Applies a partial update. `credentials: null` removes them; any change of credentials bumps
 * `credentials_version`, which makes dispatchers drop their cached token. Re-enabling clears the
 * automatic-disable mark.
 * @throws ApiError 404 `resource_missing`, 400 `validation_failed`
 */
export async function updateWebhookEndpoint(
  db: Knex,
  box: SecretBox,
  policy: TargetPolicy,
  tenantId: string,
  id: string,
  patch: WebhookUpdateInput,
): Promise<WebhookEndpoint> {
  await checkSemantics(patch, policy);
  return db.transaction(async (trx) => {
    const current = await findOwned<WebhookEndpointRow>(trx, 'webhook_endpoints', tenantId, id, { forUpdate: true });
    const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (patch.url !== undefined) changes.url = patch.url;
    if (patch.version !== undefined) changes.version = patch.version;
    if (patch.enabled_events !== undefined) changes.enabled_events = patch.enabled_events;
    if (patch.enabled !== undefined) {
      changes.enabled = patch.enabled;
      if (patch.enabled) changes.disabled_at = null;
    }
    if (patch.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, patch.metadata));
    if (patch.credentials !== undefined) {
      Object.assign(changes, credentialColumns(box, patch.credentials));
      changes.credentials_version = current.credentials_version + 1;
    }
    const [row] = await trx('webhook_endpoints').where({ id: current.id }).update(changes).returning('*');
    return toWebhookEndpoint(row as WebhookEndpointRow);
  });
}

/**
 * Deletes an endpoint: hidden from the API at once, its stored OAuth secret erased, and its pending
 * deliveries canceled (a dispatcher holding one cannot complete it: completion requires `pending`).
 * @throws ApiError 404 `resource_missing`
 */
export async function deleteWebhookEndpoint(db: Knex, tenantId: string, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await findOwned<WebhookEndpointRow>(trx, 'webhook_endpoints', tenantId, id, { forUpdate: true });
    await trx('webhook_endpoints')
      .where({ id: current.id })
      .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now(), enabled: false, oauth2_client_secret_ciphertext: null });
    await trx('webhook_deliveries')
      .where({ endpoint_id: current.id, status: 'pending' })
      .update({ status: 'canceled', next_attempt_at: null, lease_token: null, last_error: 'endpoint deleted', updated_at: trx.fn.now() });
  });
}
