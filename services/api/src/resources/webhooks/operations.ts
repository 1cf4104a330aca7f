/**
 * `/webhooks` (docs/api.md section 7): endpoint list, create, retrieve, update, delete, and each
 * endpoint's deliveries, behind `webhooks:read` / `webhooks:write`; other tenants' ids answer 404.
 * Secrets are sealed with the `SECRETS_KEY` SecretBox; target URLs follow the SSRF policy.
 */
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import { Type, deletedObject, deletedObjectSchema } from '../../schemas/common.js';
import { toWebhookDeliveries, webhookDeliverySchema, type WebhookDelivery, type WebhookDeliveryRow } from './deliveries.js';
import { WebhookEndpoint, WebhookEndpointCreate, WebhookEndpointUpdate, type WebhookEndpointRow } from './schemas.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, toWebhookEndpoint, updateWebhookEndpoint } from './store.js';

const names = crud({ path: '/webhooks', idPrefix: 'wh', tag: 'Webhook endpoints', noun: 'webhook endpoint', read: 'webhooks:read', write: 'webhooks:write' });
const object = { name: 'WebhookEndpoint', schema: WebhookEndpoint };
const deleted = { name: 'DeletedWebhookEndpoint', schema: deletedObjectSchema('webhook_endpoint') };
// The delivery schema is plain JSON Schema (shared with the dispatcher's side of the API).
const delivery = { name: 'WebhookDelivery', schema: Type.Unsafe<WebhookDelivery>(webhookDeliverySchema) };

/** Where deliveries may go: private targets only when the deployment allows them (tests, development). */
function targetPolicy(i: OperationInput<unknown, unknown>) {
  return { allowPrivate: i.ctx.cfg.ALLOW_PRIVATE_WEBHOOK_TARGETS };
}

/** The operations of `/webhooks`. */
export const webhookOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<WebhookEndpointRow, WebhookEndpoint>(i, { table: 'webhook_endpoints', counter: () => ['webhook_endpoints'], serialize: (rows) => rows.map(toWebhookEndpoint) }),
  }),
  defineOperation({
    ...names.create,
    body: { name: 'WebhookEndpointCreate', schema: WebhookEndpointCreate },
    response: { ...object, status: 201 },
    handler: (i) => createWebhookEndpoint(i.ctx.db, i.ctx.box, targetPolicy(i), i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, 'webhook_endpoints', toWebhookEndpoint),
  }),
  defineOperation({
    ...names.update,
    body: { name: 'WebhookEndpointUpdate', schema: WebhookEndpointUpdate },
    response: { ...object, status: 200 },
    handler: (i) => updateWebhookEndpoint(i.ctx.db, i.ctx.box, targetPolicy(i), i.tenantId, i.params.id!, i.body),
  }),
  defineOperation({
    ...names.delete,
    response: { ...deleted, status: 200 },
    handler: async (i) => {
      await deleteWebhookEndpoint(i.ctx.db, i.tenantId, i.params.id!);
      return deletedObject('webhook_endpoint', i.params.id!);
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
      await findOwned(i.ctx.db, 'webhook_endpoints', i.tenantId, i.params.id!);
      return listPage<WebhookDeliveryRow, WebhookDelivery>(i, {
        table: 'webhook_deliveries',
        narrow: (q, input) => void q.where('webhook_deliveries.endpoint_id', input.params.id!),
        counter: (input) => ['webhook_deliveries', input.params.id!],
        serialize: (rows) => toWebhookDeliveries(i.ctx.db, rows),
      });
    },
  }),
];
