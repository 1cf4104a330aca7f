/**
 * Tenants (docs/api.md section 5): the organisations (lenders, utilities) whose data the platform
 * keeps apart. The issuer's admin CLI creates them and `GET /tenants/me` shows the caller's; both
 * map a `tenants` row to the public object here, so the two can never show different shapes.
 */

/** A row of `tenants` (migration 001_core). */
export interface TenantRow {
  id: string;
  name: string;
  /** Free text about the account (migration 016_tenant_description); null until set. */
  description?: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The public tenant object. Timestamps are ISO 8601 UTC. */
export interface Tenant {
  id: string;
  object: 'tenant';
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** Maps a `tenants` row to its public shape. */
export function tenantFromRow(row: TenantRow): Tenant {
  return {
    id: row.id,
    object: 'tenant',
    name: row.name,
    description: row.description ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
