/**
 * The API's top router: only merges the resource routers (one module per resource).
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { customerRoutes } from './customers.js';
import { debtRoutes } from './debts.js';
import { organisationRoutes } from './organisations.js';

export function apiRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use('/organisations', organisationRoutes(ctx));
  router.use('/customers', customerRoutes(ctx));
  router.use('/debts', debtRoutes(ctx));
  return router;
}
