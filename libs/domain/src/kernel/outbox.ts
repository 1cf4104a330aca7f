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
  const [row] = await trx('events')
    .insert({ id, tenant_id: tenantId, type, api_version: LATEST_API_VERSION, data: JSON.stringify({ object: shown }), trace_parent: currentTraceparent() })
    .returning(['created_at']);
  await notifyDispatchers(trx, tenantId);
  return renderEvent({ id, type, created_at: row!.created_at as Date, data: { object: shown } }, LATEST_API_VERSION);
}

/** One event of a set written by `recordEvents`. */
export interface PendingEvent<R extends AnyResource = AnyResource> {
  resource: R;
  type: EventOf<R>;
  object: unknown;
}

/**
 * Writes `events` in transaction `trx`, in the given order (their `seq` follows it), with one
 * statement and one notification: the set form of `recordEvent` for writers of many objects at
 * once (file imports, docs/api.md section 16). Each event is stored exactly as `recordEvent`
 * stores it (id, type, API version, `{object}` with the tenant's `livemode`, trace context).
 */
export async function recordEvents(trx: Knex.Transaction, tenantId: string, events: readonly PendingEvent[]): Promise<void> {
  if (!events.length) return;
  const livemode = await tenantLivemode(trx, tenantId);
  const rows = events.map((e) => ({ id: newId(EVENT_ID_PREFIX), type: e.type, data: { object: withLivemode(e.object, livemode) } }));
  await trx.raw(
    `INSERT INTO events (id, tenant_id, type, api_version, data, trace_parent)
     SELECT e.id, ?, e.type, ?, e.data, ? FROM ROWS FROM (json_to_recordset(?::json) AS (id text, type text, data jsonb)) WITH ORDINALITY AS e(id, type, data, n)
     ORDER BY e.n`,
    [tenantId, LATEST_API_VERSION, currentTraceparent() ?? null, JSON.stringify(rows)],
  );
  await notifyDispatchers(trx, tenantId);
}

/**
 * Wakes waiting dispatchers for `tenantId` when `trx` commits (nothing is sent if it rolls back):
 * new deliveries, or deliveries made due now (docs/api.md sections 7 and 11).
 */
export async function notifyDispatchers(trx: Knex.Transaction, tenantId: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [EVENTS_CHANNEL, tenantId]);
}
