/**
 * The calling tenant (`GET /tenants/me`, docs/api.md section 5): the account that owns every
 * object the token can reach. The row-to-object mapping is @dms/tenants', shared with the issuer.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantFromRow, type TenantRow } from '@dms/tenants';
import type { Tenant } from './schemas.js';

/**
 * Loads the tenant `tenantId` (from a verified token).
 * @returns the public tenant object `{id, object: "tenant", name, created_at, updated_at}`
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists
 */
export async function getTenant(db: Knex, tenantId: string): Promise<Tenant> {
  const row = await db<TenantRow>('tenants').where({ id: tenantId }).first();
  if (!row) throw new ApiError('resource_missing', `No such tenant: '${tenantId}'`);
  return tenantFromRow(row);
}
