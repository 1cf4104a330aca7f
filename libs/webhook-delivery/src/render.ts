/**
 * The one event renderer (docs/api.md section 7): `GET /events`, `GET /events/{id}` and every
 * delivery body show an event through `renderEvent`, so the two can never drift apart.
 */

import { downgrade } from './version-changes.js';

/** A stored event, as the outbox wrote it (a row of `events`, or the columns of it a reader selected). */
export interface StoredEvent {
  id: string;
  type: string;
  created_at: Date | string;
  /** `{ object }`: the affected object as the API showed it right after the change. */
  data: { object: unknown };
  /** W3C `traceparent` of the work that recorded it (docs/api.md section 11); never shown. */
  trace_parent?: string | null;
}

/** The public event: the body a delivery carries and `GET /events/{id}` returns. */
export interface EventBody<Type extends string = string> {
  id: string;
  object: 'event';
  type: Type;
  /** API version (`YYYY-MM-DD`) whose shape `data.object` has. */
  api_version: string;
  /** ISO 8601 UTC timestamp. */
  created_at: string;
  /** False for an event of a test-mode tenant (docs/api.md section 15). */
  livemode: boolean;
  data: { object: unknown };
}

/**
 * Renders `event` in the shape of API version `apiVersion`:
 * `{"id","object":"event","type","api_version","created_at","livemode","data":{"object":…}}`.
 * `livemode` is the stored object's own (the outbox stores it with the object); an event stored
 * before test mode existed has none and was live.
 * @param apiVersion `YYYY-MM-DD`: the event's own for the API's reads, the endpoint's
 *   (`eventApiVersion`) for a delivery
 */
export function renderEvent<E extends StoredEvent>(event: E, apiVersion: string): EventBody<E['type']> {
  const createdAt = event.created_at instanceof Date ? event.created_at : new Date(event.created_at);
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    api_version: apiVersion,
    created_at: createdAt.toISOString(),
    livemode: (event.data.object as { livemode?: unknown } | null)?.livemode !== false,
    data: { object: event.data.object },
  };
}

/**
 * A delivery body: `event` in the envelope and object shapes of API version `apiVersion`
 * (`renderEvent` in the newest shape, then the versions table's transforms, version-changes.ts):
 * for `2025-04-01` `{id, object: "event", type, created_at, livemode, data: <the object>}`.
 */
export function renderEventIn(event: StoredEvent, apiVersion: string, newest: string): unknown {
  return downgrade(renderEvent(event, newest), apiVersion);
}
