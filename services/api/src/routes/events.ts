/**
 * `/events`: the tenant's events, newest first, and one event by id (CONTRACT section 7).
 * Scope `events:read`.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { toEvent, type EventRow } from '../domain/events.js';
import { listHandler, retrieveHandler } from './list.js';

/** The `/events` router (read-only: events are written by the outbox). */
export function eventRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    '/',
    requireScope('events:read'),
    listHandler<EventRow, ReturnType<typeof toEvent>>(ctx, {
      table: 'events',
      counter: () => ['events'],
      serialize: (rows) => rows.map(toEvent),
    }),
  );
  router.get('/:id', requireScope('events:read'), retrieveHandler(ctx, 'events', toEvent));
  return router;
}
