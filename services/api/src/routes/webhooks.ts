/**
 * `/webhooks`: endpoint create, retrieve, update, delete, list, and each endpoint's deliveries
 * (CONTRACT section 7). Scopes `webhooks:read` / `webhooks:write`.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { findOwned } from '../db/scoped.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { deletedObject } from '../domain/deleted.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  toWebhookEndpoint,
  updateWebhookEndpoint,
  webhookSchemas,
  type WebhookCreateInput,
  type WebhookEndpointRow,
  type WebhookUpdateInput,
} from '../domain/webhooks.js';
import { toWebhookDeliveries, type WebhookDeliveryRow } from '../domain/webhook-deliveries.js';
import { listHandler, retrieveHandler } from './list.js';

/** The `/webhooks` router; seals secrets with the `SECRETS_KEY` SecretBox and applies the SSRF policy. */
export function webhookRoutes(ctx: AppContext): Router {
  const router = Router();
  const { box } = ctx;
  const policy = { allowPrivate: ctx.cfg.ALLOW_PRIVATE_WEBHOOK_TARGETS };
  const validateCreate = validator<WebhookCreateInput>(webhookSchemas.create);
  const validateUpdate = validator<WebhookUpdateInput>(webhookSchemas.update);

  router.get(
    '/',
    requireScope('webhooks:read'),
    listHandler<WebhookEndpointRow, ReturnType<typeof toWebhookEndpoint>>(ctx, {
      table: 'webhook_endpoints',
      counter: () => ['webhook_endpoints'],
      serialize: (rows) => rows.map(toWebhookEndpoint),
    }),
  );
  router.post('/', requireScope('webhooks:write'), async (req, res) => {
    res.status(201).json(await createWebhookEndpoint(ctx.db, box, policy, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('webhooks:read'), retrieveHandler(ctx, 'webhook_endpoints', toWebhookEndpoint));
  router.patch('/:id', requireScope('webhooks:write'), async (req, res) => {
    const patch = validateUpdate(req.body);
    res.json(await updateWebhookEndpoint(ctx.db, box, policy, req.principal!.tenantId, String(req.params.id), patch));
  });
  router.delete('/:id', requireScope('webhooks:write'), async (req, res) => {
    await deleteWebhookEndpoint(ctx.db, req.principal!.tenantId, String(req.params.id));
    res.json(deletedObject('webhook_endpoint', String(req.params.id)));
  });

  const listDeliveries = listHandler<WebhookDeliveryRow, Awaited<ReturnType<typeof toWebhookDeliveries>>[number]>(ctx, {
    table: 'webhook_deliveries',
    narrow: (q, req) => void q.where('webhook_deliveries.endpoint_id', String(req.params.id)),
    counter: (req) => ['webhook_deliveries', String(req.params.id)],
    serialize: (rows) => toWebhookDeliveries(ctx.db, rows),
  });
  router.get('/:id/deliveries', requireScope('webhooks:read'), async (req, res, next) => {
    // The endpoint must be the caller's (404 otherwise) before its deliveries are listed.
    await findOwned(ctx.db, 'webhook_endpoints', req.principal!.tenantId, String(req.params.id));
    await listDeliveries(req, res, next);
  });
  return router;
}
