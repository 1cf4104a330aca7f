/**
 * Webhook endpoints and their deliveries (docs/api.md sections 7 and 11): where a tenant wants its
 * events delivered, and each delivery of an event to an endpoint (queued by the fan-out trigger of
 * migration 004, sent by the dispatcher, its moves in @dms/webhook-delivery).
 */
import { defineResource } from '../kernel/resource.js';
import { WEBHOOK_ENDPOINT_SEARCH_FIELDS } from './search.js';

/** The `webhook_endpoints` table; deleted endpoints are kept (their deliveries' history) but hidden. */
export const webhookEndpointsResource = defineResource({
  object: 'webhook_endpoint',
  noun: 'webhook endpoint',
  table: 'webhook_endpoints',
  idPrefix: 'wh',
  // Sent only by `POST /webhooks/{id}/test`, to that endpoint alone (docs/api.md section 11).
  events: ['webhook.test'],
  scopes: ['webhooks:read', 'webhooks:write'],
  visible: (q) => void q.whereNull('webhook_endpoints.deleted_at'),
  search: WEBHOOK_ENDPOINT_SEARCH_FIELDS,
});

/** The `webhook_deliveries` table (partitioned by time, docs/api.md section 11). */
export const webhookDeliveriesResource = defineResource({
  object: 'webhook_delivery',
  noun: 'webhook delivery',
  table: 'webhook_deliveries',
  idPrefix: 'del',
  events: [],
});
