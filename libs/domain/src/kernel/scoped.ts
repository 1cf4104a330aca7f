/**
 * Tenant scoping: every query on a tenant-owned table starts here, so no caller can forget the
 * tenant (the `secure_find` habit of svix). Another tenant's object is indistinguishable from a
 * missing one: both are 404 `resource_missing` (docs/api.md section 3). The one query across
 * tenants, `acrossTenants`, is for the worker's claims of due work and says so in its name.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import type { AnyResource } from './resource.js';

/** The visible rows of `resource` that belong to `tenantId`. */
export function tenantRows(db: Knex | Knex.Transaction, resource: AnyResource, tenantId: string): Knex.QueryBuilder {
  const q = db(resource.table).where(`${resource.table}.tenant_id`, tenantId);
  resource.visible?.(q);
  return q;
}

/**
 * The visible rows of `resource` of every tenant, or of `tenantIds` when given: only for the
 * worker, which claims due work across tenants (`FOR UPDATE SKIP LOCKED`) and then acts for the
 * tenant of the row it claimed.
 */
export function acrossTenants(db: Knex | Knex.Transaction, resource: AnyResource, tenantIds: readonly string[] = []): Knex.QueryBuilder {
  const q = db(resource.table);
  if (tenantIds.length) q.whereIn(`${resource.table}.tenant_id`, tenantIds);
  resource.visible?.(q);
  return q;
}

/** Options of `findOwned`. */
export interface FindOptions {
  /** Lock the row (inside a transaction) against concurrent changes. */
  forUpdate?: boolean;
  /** `param` of the 404, when the id came from a body field. */
  param?: string;
  /** Replaces the selected columns (e.g. adds a computed one); default `*`. */
  select?: (q: Knex.QueryBuilder) => void;
}

/**
 * Loads one visible row of the tenant.
 * @throws ApiError 404 `resource_missing`
 */
export async function findOwned<Row>(
  db: Knex | Knex.Transaction,
  resource: AnyResource,
  tenantId: string,
  id: string,
  options: FindOptions = {},
): Promise<Row> {
  const missing = () => new ApiError('resource_missing', `No such ${resource.noun}: '${id}'`, options.param ? { param: options.param } : {});
  // PostgreSQL text cannot hold U+0000 (a path id of `%00`): no object has such an id, and the
  // query would fail with an encoding error (a 500) instead of the 404 it deserves.
  if (id.includes('\u0000')) throw missing();
  const q = tenantRows(db, resource, tenantId).where(`${resource.table}.id`, id);
  options.select?.(q);
  q.first();
  if (options.forUpdate) q.forUpdate();
  const row = await q;
  if (!row) throw missing();
  return row as Row;
}
