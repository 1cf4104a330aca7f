/**
 * The transactional outbox (docs/api.md section 7): `recordEvent` inserts the event in the caller's
 * transaction and notifies dispatchers, whose LISTEN only fires if that transaction commits, so no
 * change is lost and no event is sent for a change that rolled back. Event types come from the
 * resource declarations (`resource.ts` of each folder); the one renderer of @dms/webhook-delivery
 * gives the event the shape the API and deliveries show, with the tenant's `livemode`.
 */
import { EVENTS_CHANNEL, type Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { currentTraceparent } from '@dms/telemetry';
import { LATEST_API_VERSION, renderEvent, type EventBody } from '@dms/webhook-delivery';
import type { AnyResource, EventOf } from './resource.js';
import { tenantLivemode, withLivemode } from './livemode.js';
import { batchWrites, writeBatchOf, type BatchedTransaction } from './write-batch.js';

/** Prefix of event ids (`evt_…`); the `events` resource declares the same. */
export const EVENT_ID_PREFIX = 'evt';

/**
 * Writes an event of `resource` for `object` in transaction `trx` (must be a transaction: the
 * event must commit or roll back with the change).
 * The trace context of the work that records it (the request, a worker's change) is stored with the
 * event (`trace_parent`, W3C traceparent, null when untraced), so its deliveries join that trace.
 * @param type one of the event types `resource` declares
 * @returns the event as the API and deliveries show it
 */
export async function recordEvent<R extends AnyResource>(
  trx: Knex.Transaction,
  resource: R,
  tenantId: string,
  type: EventOf<R>,
  object: unknown,
): Promise<EventBody<EventOf<R>>> {
  const id = newId(EVENT_ID_PREFIX);
  // The object keeps its tenant's mode inside the stored event: the envelope's `livemode` is read
  // from it (renderEvent), so the API and every delivery show the same (docs/api.md section 15).
  const shown = withLivemode(object, await tenantLivemode(trx, tenantId));
  const values = {
    id,
    tenant_id: tenantId,
    type,
    api_version: LATEST_API_VERSION,
    data: JSON.stringify({ object: shown }),
    trace_parent: currentTraceparent(),
  };
  const pending = writeBatchOf(trx)?.events;
  if (pending) {
    pending.push(values);
    return renderEvent({ id, type, created_at: new Date(), data: { object: shown } }, LATEST_API_VERSION);
  }
  const [row] = await trx('events').insert(values).returning(['created_at']);
  await notifyDispatchers(trx, tenantId);
  return renderEvent({ id, type, created_at: row!.created_at as Date, data: { object: shown } }, LATEST_API_VERSION);
}

/** Events per INSERT statement when a batch's events are written. */
const EVENTS_PER_INSERT = 500;

/**
 * Writes the events `trx`'s write batch collected (`batchWrites`; in the order recorded, up to 500
 * rows per statement) and wakes the dispatchers once per tenant; must run before the commit. The
 * events `recordEvent` returned meanwhile carry the process's clock as `created_at` (the stored
 * one is the transaction's time). `recordEvent` through `trx` writes at once afterwards.
 */
export async function flushEvents(trx: BatchedTransaction): Promise<void> {
  const pending = trx.writeBatch.events;
  trx.writeBatch.events = null;
  if (!pending?.length) return;
  for (let i = 0; i < pending.length; i += EVENTS_PER_INSERT) await trx('events').insert(pending.slice(i, i + EVENTS_PER_INSERT));
  for (const tenantId of new Set(pending.map((e) => e.tenant_id as string))) await notifyDispatchers(trx, tenantId);
}

/** One event of a set written by `recordEvents`. */
export interface PendingEvent<R extends AnyResource = AnyResource> {
  resource: R;
  type: EventOf<R>;
  object: unknown;
}

/**
 * Writes `events` of `tenantId` in transaction `trx`, in the given order (their `seq` follows it):
 * the set form of `recordEvent` for writers of many objects at once (file imports, docs/api.md
 * section 16), through a write batch like the engine's, so each is stored exactly as `recordEvent`
 * stores it. Through a handle whose batch still collects events they join those (its owner
 * flushes); otherwise they are flushed here.
 */
export async function recordEvents(trx: Knex.Transaction, tenantId: string, events: readonly PendingEvent[]): Promise<void> {
  const owner = !writeBatchOf(trx)?.events;
  const batched = owner ? batchWrites(trx, ['events']) : trx;
  for (const e of events) await recordEvent(batched, e.resource, tenantId, e.type, e.object);
  if (owner) await flushEvents(batched as BatchedTransaction);
}

/**
 * Wakes waiting dispatchers for `tenantId` when `trx` commits (nothing is sent if it rolls back):
 * new deliveries, or deliveries made due now (docs/api.md sections 7 and 11).
 */
export async function notifyDispatchers(trx: Knex.Transaction, tenantId: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [EVENTS_CHANNEL, tenantId]);
}
