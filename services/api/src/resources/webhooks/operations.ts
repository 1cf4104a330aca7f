/**
 * `/webhooks` (docs/api.md sections 7 and 11): endpoint list, create, retrieve, update, delete,
 * each endpoint's deliveries, and the operations on them (test, retry, recover, rotate_secret),
 * behind `webhooks:read` / `webhooks:write`; other tenants' ids answer 404. Secrets are sealed
 * with the `SECRETS_KEY` SecretBox; target URLs follow the SSRF policy.
 */
import { EVENT_TYPES } from '@dms/domain';
import { Type, deletedObject, deletedObjectSchema } from '@dms/domain/kernel';
import {
  WebhookEndpoint,
  WebhookRecoverBody,
  WebhookRecovery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  recoverDeliveries,
  retryDelivery,
  rotateSigningSecret,
  sendTestEvent,
  toWebhookDeliveries,
  toWebhookEndpoint,
  updateWebhookEndpoint,
  webhookDeliveriesResource,
  webhookDeliverySchema,
  webhookEndpointBodies,
  webhookEndpointsResource,
  type WebhookDelivery,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '@dms/domain/webhooks';
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, nestedUnder, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({ resource: webhookEndpointsResource, path: '/webhooks', tag: 'Webhook endpoints' });
const object = { name: 'WebhookEndpoint', schema: WebhookEndpoint };
const deleted = { name: 'DeletedWebhookEndpoint', schema: deletedObjectSchema('webhook_endpoint') };
// The delivery schema is plain JSON Schema (shared with the dispatcher's side of the API).
const delivery = { name: 'WebhookDelivery', schema: Type.Unsafe<WebhookDelivery>(webhookDeliverySchema) };
/** The bodies, subscribable to every event type the resources declare. */
const bodies = webhookEndpointBodies(EVENT_TYPES);
const underEndpoint = nestedUnder(webhookEndpointsResource, 'id', 'webhook_deliveries.endpoint_id');

/** The shared head of the endpoint actions of docs/api.md section 11. */
const action = <const P extends string>(path: P, operationId: string, summary: string, description: string) =>
  ({ method: 'post', path, operationId, tag: 'Webhook endpoints', summary, description, access: { token: true, scope: 'webhooks:write' } }) as const;

/** Where deliveries may go: private targets only when the deployment allows them (tests, development). */
function targetPolicy(i: OperationInput<unknown, unknown, unknown>) {
  return { allowPrivate: i.ctx.cfg.ALLOW_PRIVATE_WEBHOOK_TARGETS };
}

/** The operations of `/webhooks`. */
export const webhookOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<WebhookEndpointRow, WebhookEndpoint>(i, {
        resource: webhookEndpointsResource,
        counter: () => ['webhook_endpoints'],
        serialize: (rows) => rows.map(toWebhookEndpoint),
      }),
  }),
  defineOperation({
    ...names.create,
    body: { name: 'WebhookEndpointCreate', schema: bodies.create },
    response: { ...object, status: 201 },
    handler: (i) => createWebhookEndpoint(i.ctx.db, i.ctx.box, targetPolicy(i), i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, webhookEndpointsResource, toWebhookEndpoint),
  }),
  defineOperation({
    ...names.update,
    body: { name: 'WebhookEndpointUpdate', schema: bodies.update },
    response: { ...object, status: 200 },
    handler: (i) => updateWebhookEndpoint(i.ctx.db, i.ctx.box, targetPolicy(i), i.tenantId, i.params.id, i.body),
  }),
  defineOperation({
    ...names.delete,
    response: { ...deleted, status: 200 },
    handler: async (i) => {
      await deleteWebhookEndpoint(i.ctx.db, i.tenantId, i.params.id);
      return deletedObject('webhook_endpoint', i.params.id);
    },
  }),
  defineOperation({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhook endpoints',
    summary: "List an endpoint's deliveries",
    description: 'Each delivery of an event to this endpoint, with every attempt: status, response code, duration, error and next attempt.',
    access: { token: true, scope: 'webhooks:read' },
    pathParams: { id: 'wh' },
    query: pageQuery(),
    response: { ...delivery, status: 200, list: true },
    handler: async (i) => {
      // The endpoint must be the caller's (404 otherwise) before its deliveries are listed.
      const endpoint = await underEndpoint(i);
      return listPage<WebhookDeliveryRow, WebhookDelivery>(i, {
        resource: webhookDeliveriesResource,
        narrow: endpoint.narrow,
        counter: () => ['webhook_deliveries', endpoint.id],
        serialize: (rows) => toWebhookDeliveries(i.ctx.db, rows),
      });
    },
  }),
  defineOperation({
    ...action(
      '/webhooks/{id}/test',
      'testWebhookEndpoint',
      'Send a test event',
      'Records a `webhook.test` event (its `data.object` is this endpoint) and delivers it to this endpoint alone, now, signed and retried like any delivery. Answers the delivery.',
    ),
    pathParams: { id: 'wh' },
    response: { ...delivery, status: 201 },
    errors: ['invalid_state_transition'],
    events: ['webhook.test'],
    handler: (i) => sendTestEvent(i.ctx.db, i.tenantId, i.params.id),
  }),
  defineOperation({
    ...action(
      '/webhooks/{id}/deliveries/{deliveryId}/retry',
      'retryWebhookDelivery',
      'Retry a delivery',
      'Sends a failed delivery again: a `failed` (schedule exhausted) or `canceled` one, or one waiting for its next retry, becomes due now with a fresh retry schedule. Attempt numbers continue. 409 when it succeeded, was never attempted, is being sent, or the endpoint is disabled.',
    ),
    pathParams: { id: 'wh', deliveryId: 'del' },
    response: { ...delivery, status: 200 },
    errors: ['invalid_state_transition'],
    handler: (i) => retryDelivery(i.ctx.db, i.tenantId, i.params.id, i.params.deliveryId),
  }),
  defineOperation({
    ...action(
      '/webhooks/{id}/recover',
      'recoverWebhookDeliveries',
      'Recover failed deliveries',
      "Queues again every delivery of this endpoint created at or after `since` that ended without success (`failed`, or `canceled` while the endpoint was disabled), each due now with a fresh retry schedule (as Svix's recover).",
    ),
    pathParams: { id: 'wh' },
    body: { name: 'WebhookRecoverBody', schema: WebhookRecoverBody },
    response: { name: 'WebhookRecovery', schema: WebhookRecovery, status: 200 },
    errors: ['invalid_state_transition'],
    handler: (i) => recoverDeliveries(i.ctx.db, i.tenantId, i.params.id, i.body.since),
  }),
  defineOperation({
    ...action(
      '/webhooks/{id}/rotate_secret',
      'rotateWebhookSigningSecret',
      'Rotate the signing secret',
      'Issues a new `signing_secret` (in this response only). For 24 hours deliveries carry two `v1,` signatures in `webhook-signature`, one by the new and one by the previous secret, so a receiver verifies with either while it switches.',
    ),
    pathParams: { id: 'wh' },
    response: { ...object, status: 200 },
    handler: (i) => rotateSigningSecret(i.ctx.db, i.ctx.box, i.tenantId, i.params.id),
  }),
];
