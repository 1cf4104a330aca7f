/**
 * The API's top router: only merges the resource routers (one module per resource).
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { customerRoutes } from './customers.js';
import { debtRoutes } from './debts.js';
import { organisationRoutes } from './organisations.js';
import { debtLifecycleRoutes } from './debt-lifecycle.js';
import { paymentRoutes } from './payments.js';
import { tenantRoutes } from './tenants.js';
import { webhookRoutes } from './webhooks.js';
import { eventRoutes } from './events.js';

/**
 * The resource router: mounts each resource's router at its path (CONTRACT section 5). Routes
 * are mounted after authentication, so every handler has `req.principal`.
 */
export function apiRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use('/organisations', organisationRoutes(ctx));
  router.use('/customers', customerRoutes(ctx));
  router.use('/debts', debtRoutes(ctx));
  router.use('/debts', debtLifecycleRoutes(ctx));
  router.use('/debts/:debtId/payments', paymentRoutes(ctx));
  router.use('/tenants', tenantRoutes(ctx));
  router.use('/webhooks', webhookRoutes(ctx));
  router.use('/events', eventRoutes(ctx));
  return router;
}
