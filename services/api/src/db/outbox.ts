/**
 * The transactional outbox (docs/api.md section 7): `recordEvent` inserts the event in the caller's
 * transaction and notifies dispatchers, whose LISTEN only fires if that transaction commits.
 */
import { EVENTS_CHANNEL, type Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { renderEvent, type EventBody } from '@dms/webhook-delivery';
import { LATEST_API_VERSION } from '../middleware/api-version.js';

/** Event types (docs/api.md sections 7, 8 and 9). */
export const EVENT_TYPES = [
  'organisation.created',
  'organisation.updated',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer_contact_detail.created',
  'customer_contact_detail.updated',
  'customer_contact_detail.deleted',
  'debt.created',
  'debt.updated',
  'debt.prepared',
  'debt.paused',
  'debt.resumed',
  'debt.disputed',
  'debt.settled',
  'debt.withdrawn',
  'debt.paid',
  'debt.deleted',
  'debt.paying',
  'debt.defaulted',
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'payment.refunded',
  'line_item.created',
  'invoice.created',
  'invoice.updated',
  'payment_plan.created',
  'payment_plan.updated',
  'payment_plan.completed',
  'payment_plan.broken',
  'payment_plan.canceled',
  // Sent only by `POST /webhooks/{id}/test`, to that endpoint alone (docs/api.md section 11).
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The public shape of an event (rendered by @dms/webhook-delivery's one renderer). */
export type ApiEvent = EventBody<EventType>;

/**
 * Writes an event for `object` in transaction `trx` (must be a transaction: the event must commit
 * or roll back with the change).
 * @returns the event as the API and deliveries show it
 */
export async function recordEvent(trx: Knex.Transaction, tenantId: string, type: EventType, object: unknown): Promise<ApiEvent> {
  const id = newId('evt');
  const [row] = await trx('events')
    .insert({ id, tenant_id: tenantId, type, api_version: LATEST_API_VERSION, data: JSON.stringify({ object }) })
    .returning(['created_at']);
  await notifyDispatchers(trx, tenantId);
  return renderEvent({ id, type, created_at: row!.created_at as Date, data: { object } }, LATEST_API_VERSION);
}

/**
 * Wakes waiting dispatchers for `tenantId` when `trx` commits (nothing is sent if it rolls back):
 * new deliveries, or deliveries made due now (docs/api.md sections 7 and 11).
 */
export async function notifyDispatchers(trx: Knex.Transaction, tenantId: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [EVENTS_CHANNEL, tenantId]);
}
