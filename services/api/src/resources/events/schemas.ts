/**
 * Events (docs/api.md section 7), read side: `GET /events` and `GET /events/{id}` show what the
 * outbox (src/db/outbox.ts) recorded, rendered by @dms/webhook-delivery's `renderEvent`, the
 * renderer of delivery bodies too. The object and row schemas are TypeBox; their types derive from them.
 */
import { renderEvent } from '@dms/webhook-delivery';
import { EVENT_TYPES, type ApiEvent } from '../../db/outbox.js';
import { DateColumn, StringEnum, Type, objectId, type Static } from '../../schemas/common.js';

const eventType = StringEnum(EVENT_TYPES);

/** The public event object (also the body of every delivery). */
export const Event = Type.Object({
  id: objectId('evt'),
  object: Type.Literal('event'),
  type: eventType,
  api_version: Type.String({ description: 'API version whose shape `data.object` has.' }),
  created_at: Type.String({ format: 'date-time' }),
  data: Type.Object({
    object: Type.Unsafe<unknown>({ type: 'object', additionalProperties: true, description: 'The affected object right after the change.' }),
  }),
});

/** A row of `events` (the outbox), written by db/outbox.ts in the transaction of the change. */
export const EventRow = Type.Object({
  id: Type.String(),
  seq: Type.Number(),
  tenant_id: Type.String(),
  type: eventType,
  api_version: Type.String(),
  data: Type.Object({ object: Type.Unknown() }),
  created_at: DateColumn,
});

export type EventRow = Static<typeof EventRow>;

/** Maps a row to the public event, in the API version it was recorded in. */
export function toEvent(row: EventRow): ApiEvent {
  return renderEvent(row, row.api_version);
}
