/**
 * Tenants: the organisations (lenders, utilities) whose data the platform keeps apart. Created by
 * operators with the admin CLI.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';

/** A tenant as the CLI and `GET /tenants/me` show it. */
export interface Tenant {
  id: string;
  object: 'tenant';
  name: string;
  created_at: string;
  updated_at: string;
}

interface TenantRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** Maps a `tenants` row to its public shape. */
export function tenantFromRow(row: TenantRow): Tenant {
  return { id: row.id, object: 'tenant', name: row.name, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/**
 * Creates a tenant.
 * @param name display name, 1..200 characters
 * @throws Error when the name is empty or too long
 */
export async function createTenant(db: Knex, name: string): Promise<Tenant> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new Error('tenant name must be 1 to 200 characters');
  const [row] = await db<TenantRow>('tenants').insert({ id: newId('ten'), name: trimmed }).returning('*');
  return tenantFromRow(row!);
}
