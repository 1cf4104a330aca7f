/**
 * Events (docs/api.md section 7), read side: `GET /events` and `GET /events/{id}` show what the
 * outbox (src/db/outbox.ts) recorded, rendered by @dms/webhook-delivery's `renderEvent`, the
 * renderer of delivery bodies too.
 */
import { renderEvent } from '@dms/webhook-delivery';
import type { JsonSchema } from '../../http/validation.js';
import { EVENT_TYPES, type ApiEvent } from '../../db/outbox.js';

/** A row of `events` (the outbox), written by db/outbox.ts in the transaction of the change. */
export interface EventRow {
  id: string;
  seq: number;
  tenant_id: string;
  type: ApiEvent['type'];
  api_version: string;
  data: { object: unknown };
  created_at: Date;
}

/** JSON Schema of the event object (for the OpenAPI document). */
export const eventSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'type', 'api_version', 'created_at', 'data'],
  properties: {
    id: { type: 'string', examples: ['evt_1a2B3c4D5e6F7g8H9i0JkLmN'] },
    object: { const: 'event' },
    type: { type: 'string', enum: [...EVENT_TYPES] },
    api_version: { type: 'string', description: 'API version whose shape `data.object` has.' },
    created_at: { type: 'string', format: 'date-time' },
    data: { type: 'object', required: ['object'], properties: { object: { type: 'object', additionalProperties: true, description: 'The affected object right after the change.' } } },
  },
};

/** Maps a row to the public event, in the API version it was recorded in. */
export function toEvent(row: EventRow): ApiEvent {
  return renderEvent(row, row.api_version);
}
