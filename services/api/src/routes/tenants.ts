/**
 * `/tenants/me`: the tenant of the calling token. Any valid token may read it (no scope: a client
 * must be able to tell which account it acts for whatever it was granted).
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { getTenant } from '../domain/tenants.js';

/** `GET /tenants/me`: the tenant of the token. Any valid token may read it, so no scope is required. */
export function tenantRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json(await getTenant(ctx.db, req.principal!.tenantId));
  });
  return router;
}
