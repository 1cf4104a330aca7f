/**
 * The calling tenant (`/tenants/me`, docs/api.md sections 5 and 10): the account that owns every
 * object the token can reach. The row-to-object mapping is @dms/tenants', shared with the issuer.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantFromRow, type TenantRow } from '@dms/tenants';
import { givenFields } from '../../db/owned.js';
import type { Tenant, TenantUpdate } from './schemas.js';

const missing = (tenantId: string) => new ApiError('resource_missing', `No such tenant: '${tenantId}'`);

/**
 * Loads the tenant `tenantId` (from a verified token).
 * @returns the public tenant object `{id, object: "tenant", name, description, created_at, updated_at}`
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists
 */
export async function getTenant(db: Knex, tenantId: string): Promise<Tenant> {
  const row = await db<TenantRow>('tenants').where({ id: tenantId }).first();
  if (!row) throw missing(tenantId);
  return tenantFromRow(row);
}

/**
 * Updates the tenant's `name` and/or `description` (given fields replace; `description: null` clears).
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists
 */
export async function updateTenant(db: Knex, tenantId: string, input: TenantUpdate): Promise<Tenant> {
  const [row] = await db<TenantRow>('tenants')
    .where({ id: tenantId })
    .update({ ...givenFields(input, ['name', 'description']), updated_at: db.fn.now() })
    .returning('*');
  if (!row) throw missing(tenantId);
  return tenantFromRow(row as TenantRow);
}
