/**
 * The calling tenant (`GET /tenants/me`, docs/api.md section 5): the account that owns every
 * object the token can reach. The row-to-object mapping is @dms/tenants', shared with the issuer.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantFromRow, type Tenant, type TenantRow } from '@dms/tenants';
import type { JsonSchema } from '../http/validation.js';
import { timestampProperties } from './schema-parts.js';

export type { Tenant };

/** JSON Schema (2020-12) of the response object, for the OpenAPI document. */
export const tenantSchemas: { object: JsonSchema } = {
  object: {
    type: 'object',
    required: ['id', 'object', 'name', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['ten_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'tenant' },
      name: { type: 'string' },
      ...timestampProperties,
    },
  },
};

/**
 * Loads the tenant `tenantId` (from a verified token).
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists
 */
export async function getTenant(db: Knex, tenantId: string): Promise<Tenant> {
  const row = await db<TenantRow>('tenants').where({ id: tenantId }).first();
  if (!row) throw new ApiError('resource_missing', `No such tenant: '${tenantId}'`);
  return tenantFromRow(row);
}
