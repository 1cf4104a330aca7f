/**
 * `/events` (docs/api.md section 7): the tenant's events, newest first, and one event by id,
 * behind `events:read`. Read-only: events are written by the outbox in the transaction of the
 * change they record.
 */
import { eventsResource, toEvent, type ApiEvent, type EventRow } from '@dms/domain/events';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { Event } from './schemas.js';

const read = { token: true, scope: 'events:read' } as const;
const object = { name: 'Event', schema: Event };

/** The operations of `/events`. */
export const eventOperations: AnyOperation[] = [
  defineOperation({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'List events',
    description: 'Every change tenants can subscribe to, newest first (the same objects webhooks deliver).',
    access: read,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<EventRow, ApiEvent>(i, { resource: eventsResource, counter: () => ['events'], serialize: (rows) => rows.map(toEvent) }),
  }),
  defineOperation({
    method: 'get',
    path: '/events/{id}',
    operationId: 'retrieveEvent',
    tag: 'Events',
    summary: 'Retrieve an event',
    access: read,
    pathParams: { id: eventsResource.idPrefix },
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, eventsResource, toEvent),
  }),
];
