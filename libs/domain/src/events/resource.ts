/**
 * Events (docs/api.md section 7): what the outbox records in the transaction of each change, read
 * back by `GET /events` and delivered to webhook endpoints. Every resource declares its own event
 * types; this declaration adds only the table and the scope that reads them.
 */
import { defineResource } from '../kernel/resource.js';
import { EVENT_ID_PREFIX } from '../kernel/outbox.js';

/** The `events` table (partitioned by time, docs/api.md section 11). */
export const eventsResource = defineResource({
  object: 'event',
  noun: 'event',
  table: 'events',
  idPrefix: EVENT_ID_PREFIX,
  events: [],
  scopes: ['events:read'],
});
