/**
 * The moves of the delivery queue made for an endpoint rather than by a dispatcher's attempt
 * (docs/api.md sections 7 and 11): queue one delivery (a test event), cancel an endpoint's
 * deliveries when it is deleted, send failed ones again (`requeue`). The SQL of each move of
 * states.ts lives here or in queue.ts, nowhere else.
 */
import type { Knex } from '@dms/db';
import type { WebhookDeliveryRow } from './rows.js';
import { STORED_STATUS, TRANSITIONS, requireTransition, type DeliveryState } from './states.js';

/**
 * Cancels every delivery of an endpoint that has not ended (move `cancel`: the endpoint was
 * deleted). One held by a dispatcher loses its lease, so its result can no longer be recorded.
 * @param db the transaction that deletes the endpoint
 */
export async function cancelEndpointDeliveries(db: Knex | Knex.Transaction, endpointId: string, reason: string): Promise<void> {
  for (const state of TRANSITIONS.cancel.from) requireTransition(state, 'cancel');
  await db('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .update({ status: STORED_STATUS[TRANSITIONS.cancel.to], next_attempt_at: null, lease_token: null, last_error: reason, updated_at: db.fn.now() });
}

/** A new delivery of one event to one endpoint. */
export interface NewDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
  event: { id: string; type: string; created_at: string | Date };
}

/**
 * Queues one delivery, due now (state `pending`), outside the fan-out trigger of migration 004
 * (used for `webhook.test`, which goes to the endpoint tested alone, docs/api.md section 11).
 * @returns the stored row
 */
export async function insertDelivery(db: Knex | Knex.Transaction, d: NewDelivery): Promise<WebhookDeliveryRow> {
  const [row] = await db('webhook_deliveries')
    .insert({
      id: d.id,
      tenant_id: d.tenantId,
      endpoint_id: d.endpointId,
      event_id: d.event.id,
      event_type: d.event.type,
      next_attempt_at: db.fn.now(),
      created_at: d.event.created_at,
    })
    .returning('*');
  return row as WebhookDeliveryRow;
}

/** The SQL condition of each state on a `webhook_deliveries` row (the inverse of `stateOf`, states.ts). */
export const STATE_CONDITION: Readonly<Record<DeliveryState, string>> = {
  pending: `(status = 'pending' AND lease_token IS NULL AND attempt_count <= schedule_base)`,
  delivering: `(status = 'pending' AND lease_token IS NOT NULL)`,
  retry_scheduled: `(status = 'pending' AND lease_token IS NULL AND attempt_count > schedule_base)`,
  succeeded: `(status = 'succeeded')`,
  exhausted: `(status = 'failed')`,
  canceled: `(status = 'canceled')`,
};

/** Which deliveries of one endpoint a requeue takes. */
export interface RequeueFilter {
  endpointId: string;
  /** States to take; each must allow the move `requeue` (default: all that do). */
  states?: readonly DeliveryState[];
  /** Only this delivery. */
  deliveryId?: string;
  /** Only deliveries created at or after this time. */
  createdSince?: Date;
}

/**
 * Sends deliveries again (move `requeue`, docs/api.md section 11): each becomes pending, due now,
 * with a fresh retry schedule (`schedule_base` = attempts so far; attempt numbers continue, so the
 * history keeps every earlier attempt). Rows under a dispatcher's lease are never taken.
 * @param db a transaction when the caller checks or locks anything first
 * @returns the ids requeued
 * @throws Error when `states` names a state `requeue` does not leave (a programming error)
 */
export async function requeueDeliveries(db: Knex | Knex.Transaction, f: RequeueFilter): Promise<string[]> {
  const states = f.states ?? TRANSITIONS.requeue.from;
  for (const state of states) requireTransition(state, 'requeue');
  const q = db('webhook_deliveries')
    .where('endpoint_id', f.endpointId)
    .whereRaw(`(${states.map((s) => STATE_CONDITION[s]).join(' OR ')})`);
  if (f.deliveryId) q.where('id', f.deliveryId);
  if (f.createdSince) q.where('created_at', '>=', f.createdSince);
  const rows: Array<{ id: string }> = await q
    .update({ status: 'pending', next_attempt_at: db.fn.now(), lease_token: null, schedule_base: db.ref('attempt_count'), updated_at: db.fn.now() })
    .returning('id');
  return rows.map((r) => r.id);
}
