/**
 * Tenants (docs/api.md section 5): the organisations (lenders, utilities) whose data the platform
 * keeps apart. Created by operators with the admin CLI; shown as @dms/tenants maps them, the same
 * object as `GET /tenants/me`.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { tenantFromRow, type Tenant, type TenantRow } from '@dms/tenants';

export type { Tenant };

/**
 * Creates a tenant.
 * @param name display name, 1..200 characters
 * @throws Error when the name is empty or too long
 */
export async function createTenant(db: Knex, name: string): Promise<Tenant> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new Error('tenant name must be 1 to 200 characters');
  const [row] = await db<TenantRow>('tenants')
    .insert({ id: newId('ten'), name: trimmed })
    .returning('*');
  return tenantFromRow(row!);
}
