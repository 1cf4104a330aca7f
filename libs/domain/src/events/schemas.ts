/**
 * Events (docs/api.md section 7), read side: the stored row and its public form, rendered by
 * @dms/webhook-delivery's `renderEvent`, the renderer of delivery bodies too. The public schema,
 * whose `type` lists every event type of the registry, is built by the API.
 */
import { renderEvent, type EventBody } from '@dms/webhook-delivery';
import { DateColumn, Type, type Static } from '../kernel/schemas.js';

/** A row of `events` (the outbox), written by `recordEvent` in the transaction of the change. */
export const EventRow = Type.Object({
  id: Type.String(),
  seq: Type.Number(),
  tenant_id: Type.String(),
  type: Type.String(),
  api_version: Type.String(),
  data: Type.Object({ object: Type.Unknown() }),
  created_at: DateColumn,
});

export type EventRow = Static<typeof EventRow>;

/** The public event (`{id, object: "event", type, api_version, created_at, data: {object}}`). */
export type ApiEvent = EventBody<string>;

/** Maps a row to the public event, in the API version it was recorded in. */
export function toEvent(row: EventRow): ApiEvent {
  return renderEvent(row, row.api_version);
}
