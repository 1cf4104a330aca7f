/**
 * Operating an endpoint's deliveries (docs/api.md section 11): send a `webhook.test` event to one
 * endpoint, send one failed delivery again, and recover every failed delivery since a time. The
 * moves are those of @dms/webhook-delivery (`requeue`, states.ts); this module checks ownership
 * and state, and wakes the dispatchers when the transaction commits.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { insertDelivery, requeueDeliveries, stateOf, transition } from '@dms/webhook-delivery';
import { notifyDispatchers, recordEvent } from '../kernel/outbox.js';
import { findOwned } from '../kernel/scoped.js';
import { toWebhookDeliveries, type WebhookDelivery, type WebhookDeliveryRow } from './deliveries.js';
import { webhookDeliveriesResource, webhookEndpointsResource } from './resource.js';
import type { WebhookEndpointRow, WebhookRecovery } from './schemas.js';
import { toWebhookEndpoint } from './store.js';

/**
 * Locks the tenant's endpoint `id` (a concurrent update, disable or delete waits) and requires it
 * enabled: the dispatcher cancels deliveries to a disabled endpoint instead of sending them.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (disabled)
 */
async function enabledEndpoint(trx: Knex.Transaction, tenantId: string, id: string): Promise<WebhookEndpointRow> {
  const endpoint = await findOwned<WebhookEndpointRow>(trx, webhookEndpointsResource, tenantId, id, { forUpdate: true });
  if (!endpoint.enabled) {
    throw new ApiError('invalid_state_transition', `Webhook endpoint '${id}' is disabled; re-enable it first (PATCH {"enabled": true}).`);
  }
  return endpoint;
}

async function serialize(db: Knex, row: WebhookDeliveryRow): Promise<WebhookDelivery> {
  return (await toWebhookDeliveries(db, [row]))[0]!;
}

/**
 * `POST /webhooks/{id}/test`: records a `webhook.test` event (its `data.object` is the endpoint,
 * without secrets) and one delivery of it to this endpoint alone, due now. The fan-out trigger
 * skips `webhook.test` (migration 020), so no other endpoint receives it.
 * @returns the new delivery (`pending`)
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (endpoint disabled)
 */
export async function sendTestEvent(db: Knex, tenantId: string, endpointId: string): Promise<WebhookDelivery> {
  const row = await db.transaction(async (trx) => {
    const endpoint = await enabledEndpoint(trx, tenantId, endpointId);
    const event = await recordEvent(trx, webhookEndpointsResource, tenantId, 'webhook.test', toWebhookEndpoint(endpoint));
    return insertDelivery(trx, { id: newId(webhookDeliveriesResource.idPrefix), tenantId, endpointId: endpoint.id, event });
  });
  return serialize(db, row);
}

/**
 * `POST /webhooks/{id}/deliveries/{deliveryId}/retry`: sends a failed delivery again (move
 * `requeue`): an exhausted or canceled one, or one waiting for its next retry, becomes due now
 * with a fresh retry schedule.
 * @returns the delivery, `pending`
 * @throws ApiError 404 `resource_missing` (endpoint or delivery unknown, another tenant's, or
 *   another endpoint's), 409 `invalid_state_transition` (succeeded, never attempted, being sent
 *   right now, or endpoint disabled)
 */
export async function retryDelivery(db: Knex, tenantId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const row = await db.transaction(async (trx) => {
    await enabledEndpoint(trx, tenantId, endpointId);
    const current = await findOwned<WebhookDeliveryRow>(trx, webhookDeliveriesResource, tenantId, deliveryId, { forUpdate: true, param: 'deliveryId' });
    if (current.endpoint_id !== endpointId) throw new ApiError('resource_missing', `No such webhook delivery: '${deliveryId}'`, { param: 'deliveryId' });
    const move = transition(stateOf(current), 'requeue');
    if (!move.ok) throw new ApiError('invalid_state_transition', move.message);
    await requeueDeliveries(trx, { endpointId, deliveryId });
    await notifyDispatchers(trx, tenantId);
    return findOwned<WebhookDeliveryRow>(trx, webhookDeliveriesResource, tenantId, deliveryId);
  });
  return serialize(db, row);
}

/**
 * `POST /webhooks/{id}/recover`: queues again every delivery of the endpoint created at or after
 * `since` that ended without success (`failed`, or `canceled` while the endpoint was disabled),
 * like Svix's recover. Each is due now with a fresh retry schedule.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (endpoint disabled)
 */
export async function recoverDeliveries(db: Knex, tenantId: string, endpointId: string, since: string): Promise<WebhookRecovery> {
  const createdSince = new Date(since);
  const requeued = await db.transaction(async (trx) => {
    await enabledEndpoint(trx, tenantId, endpointId);
    const ids = await requeueDeliveries(trx, { endpointId, states: ['exhausted', 'canceled'], createdSince });
    if (ids.length) await notifyDispatchers(trx, tenantId);
    return ids.length;
  });
  return { object: 'webhook_recovery', endpoint: endpointId, since: createdSince.toISOString(), requeued };
}
