/**
 * Operators act for a tenant they name (docs/api.md section 12): a request with an operator's
 * token must carry `Tenant-Id`, the id of an existing tenant, and is then scoped to that tenant
 * like any of the tenant's own requests (lists, writes, idempotency keys, events), in that tenant's
 * mode (a test-mode tenant's objects show `livemode: false`, docs/api.md section 15). A missing or
 * unknown `Tenant-Id` is 400 `parameter_invalid` naming the header; a tenant's token ignores it.
 */
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantMode } from '@dms/domain/tenants';

/** The request header naming the tenant an operator acts for. */
export const TENANT_ID_HEADER = 'Tenant-Id';

const invalid = (message: string) => new ApiError('parameter_invalid', message, { param: TENANT_ID_HEADER });

/**
 * Resolves the tenant of an operator's request; mount right after `authenticate`.
 * @param db reads whether a tenant exists and its mode (remembered for a minute: tenants are never
 *   deleted, and a tenant's mode never changes)
 */
export function operatorTenant(db: Knex): RequestHandler {
  const known = new LRUCache<string, boolean>({ max: 10_000, ttl: 60_000 });
  return (req, _res, next) => {
    const principal = req.principal;
    if (!principal?.operator) return next();
    const tenantId = req.get(TENANT_ID_HEADER)?.trim();
    if (!tenantId) return next(invalid(`An operator's request must name the tenant it acts for in ${TENANT_ID_HEADER}.`));
    const act = (livemode: boolean) => {
      req.principal = { ...principal, tenantId, livemode };
      next();
    };
    const cached = known.get(tenantId);
    if (cached !== undefined) return act(cached);
    tenantMode(db, tenantId).then((livemode) => {
      if (livemode === undefined) return next(invalid(`No such tenant: '${tenantId}'.`));
      known.set(tenantId, livemode);
      act(livemode);
    }, next);
  };
}
