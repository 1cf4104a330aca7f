/**
 * The transactional outbox (CONTRACT section 7): `recordEvent` inserts the event in the caller's
 * transaction and notifies dispatchers, whose LISTEN only fires if that transaction commits.
 */
import { EVENTS_CHANNEL, type Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { LATEST_API_VERSION } from '../middleware/api-version.js';


/** Event types (docs/api.md sections 7, 8 and 9). */
export const EVENT_TYPES = [
  'organisation.created',
  'organisation.updated',
  'customer.created',
  'customer.updated',
  'customer.deleted',
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The public shape of an event. */
export interface ApiEvent {
  id: string;
  object: 'event';
  type: EventType;
  api_version: string;
  created_at: string;
  data: { object: unknown };
}

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
  await trx.raw('SELECT pg_notify(?, ?)', [EVENTS_CHANNEL, tenantId]);
  return { id, object: 'event', type, api_version: LATEST_API_VERSION, created_at: (row!.created_at as Date).toISOString(), data: { object } };
}
