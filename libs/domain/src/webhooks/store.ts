/**
 * Webhook endpoints (docs/api.md section 7): where a tenant wants its events delivered, which
 * events, in which version's shape, and optionally the OAuth 2.0 client credentials the dispatcher
 * uses to authorise deliveries. Written through the shared skeleton (kernel/owned.ts); endpoints record
 * no events.
 *
 * Secrets (the `whsec_` signing secret, the OAuth client secret) are sealed with the SecretBox
 * before they reach the database and never appear in a response, except the signing secret in
 * the create response, once. Target URLs pass the SSRF guard (@dms/ssrf) on create and update.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import type { SecretBox } from '@dms/secrets';
import { checkTargetUrl, type TargetPolicy } from '@dms/ssrf';
import { DEFAULT_SIGNATURE_SCHEME, LATEST_WEBHOOK_VERSION, webhookVersionProblem } from '@dms/webhook-delivery';
import { cancelEndpointDeliveries, requeueDeliveries } from '@dms/webhook-delivery';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../kernel/owned.js';
import { notifyDispatchers } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { webhookEndpointsResource } from './resource.js';
import {
  ALL_EVENTS,
  type OAuth2Credentials,
  type WebhookEndpoint,
  type WebhookEndpointCreate,
  type WebhookEndpointRow,
  type WebhookEndpointUpdate,
} from './schemas.js';

/** Bytes of entropy in a signing secret (Standard Webhooks: 24 to 64). */
const SIGNING_SECRET_BYTES = 32;
/** How long a rotated-out signing secret still signs deliveries, seconds (docs/api.md section 11). */
export const SECRET_ROTATION_OVERLAP_SECONDS = 24 * 60 * 60;

/** Maps a row to the public object (no secret of any kind). */
export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled: row.enabled,
    enabled_events: row.enabled_events,
    version: row.version,
    signature_scheme: row.signature_scheme,
    credentials: row.oauth2_token_url && row.oauth2_client_id ? { oauth2: { token_url: row.oauth2_token_url, client_id: row.oauth2_client_id } } : null,
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
async function checkSemantics(input: WebhookEndpointUpdate, policy: TargetPolicy): Promise<void> {
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

const endpoints: OwnedResource<WebhookEndpointRow, WebhookEndpoint, typeof webhookEndpointsResource> = {
  resource: webhookEndpointsResource,
  toObject: toWebhookEndpoint,
};

/**
 * Registers an endpoint (`POST /webhooks`).
 * @returns the endpoint and its signing secret (the only time the secret leaves the service)
 * @throws ApiError 400 `validation_failed` for semantic problems and refused targets
 */
export async function createWebhookEndpoint(
  db: Knex,
  box: SecretBox,
  policy: TargetPolicy,
  tenantId: string,
  input: WebhookEndpointCreate,
): Promise<WebhookEndpoint & { signing_secret: string }> {
  await checkSemantics(input, policy);
  const signingSecret = newSigningSecret();
  const endpoint = await createOwned(db, tenantId, endpoints, {
    url: input.url,
    version: input.version ?? LATEST_WEBHOOK_VERSION,
    signature_scheme: input.signature_scheme ?? DEFAULT_SIGNATURE_SCHEME,
    enabled: input.enabled ?? true,
    enabled_events: input.enabled_events,
    metadata: input.metadata,
    signing_secret_ciphertext: box.seal(signingSecret),
    ...credentialColumns(box, input.credentials),
  });
  return { ...endpoint, signing_secret: signingSecret };
}

/**
 * Applies a partial update (`PATCH /webhooks/{id}`): given fields replace, `metadata` merges.
 * `credentials: null` removes them; any change of credentials bumps `credentials_version`, which
 * makes dispatchers drop their cached token. Re-enabling a disabled endpoint clears the
 * automatic-disable mark and starts its schedule afresh (docs/api.md section 11).
 * @throws ApiError 404 `resource_missing`, 400 `validation_failed`
 */
export async function updateWebhookEndpoint(
  db: Knex,
  box: SecretBox,
  policy: TargetPolicy,
  tenantId: string,
  id: string,
  patch: WebhookEndpointUpdate,
): Promise<WebhookEndpoint> {
  await checkSemantics(patch, policy);
  return updateOwned(
    db,
    tenantId,
    endpoints,
    id,
    async (current, trx) => {
      const changes = givenFields(patch, ['url', 'version', 'signature_scheme', 'enabled_events', 'enabled']);
      if (patch.enabled) changes.disabled_at = null;
      if (patch.enabled && !current.enabled) await restartSchedule(trx, tenantId, current.id);
      if (patch.credentials !== undefined) {
        Object.assign(changes, credentialColumns(box, patch.credentials));
        changes.credentials_version = current.credentials_version + 1;
      }
      return changes;
    },
    patch.metadata,
  );
}

/**
 * Issues a new signing secret (`POST /webhooks/{id}/rotate_secret`, docs/api.md section 11). The
 * replaced secret keeps signing for `SECRET_ROTATION_OVERLAP_SECONDS` (each delivery then carries
 * one `v1,` signature per secret), so a receiver verifies with either while it switches over. A
 * second rotation within that window drops the oldest secret.
 * @returns the endpoint and its new secret (shown this once)
 * @throws ApiError 404 `resource_missing`
 */
export async function rotateSigningSecret(db: Knex, box: SecretBox, tenantId: string, id: string): Promise<WebhookEndpoint & { signing_secret: string }> {
  const signingSecret = newSigningSecret();
  const endpoint = await updateOwned(db, tenantId, endpoints, id, (current, trx) => ({
    previous_signing_secret_ciphertext: current.signing_secret_ciphertext,
    previous_signing_secret_expires_at: trx.raw('now() + make_interval(secs => ?)', [SECRET_ROTATION_OVERLAP_SECONDS]),
    signing_secret_ciphertext: box.seal(signingSecret),
  }));
  return { ...endpoint, signing_secret: signingSecret };
}

/**
 * Deletes an endpoint (`DELETE /webhooks/{id}`): hidden from the API at once, its stored OAuth
 * secret erased, and its pending deliveries canceled (a dispatcher holding one cannot complete
 * it: completion requires `pending`).
 * @throws ApiError 404 `resource_missing`
 */
export async function deleteWebhookEndpoint(db: Knex, tenantId: string, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await findOwned<WebhookEndpointRow>(trx, webhookEndpointsResource, tenantId, id, { forUpdate: true });
    await tenantRows(trx, webhookEndpointsResource, tenantId)
      .where('webhook_endpoints.id', current.id)
      .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now(), enabled: false, oauth2_client_secret_ciphertext: null });
    await cancelEndpointDeliveries(trx, current.id, 'endpoint deleted');
  });
}

/**
 * Re-enabling (`PATCH enabled: true` on a disabled endpoint) starts its schedule afresh: its
 * deliveries still waiting for a retry become due now with a full schedule ahead, instead of
 * resuming a schedule that had nearly run out. Runs in the update's transaction.
 */
async function restartSchedule(trx: Knex.Transaction, tenantId: string, endpointId: string): Promise<void> {
  const ids = await requeueDeliveries(trx, { endpointId, states: ['retry_scheduled'] });
  if (ids.length) await notifyDispatchers(trx, tenantId);
}
