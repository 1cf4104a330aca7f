/**
 * Tenant schemas (docs/api.md sections 5 and 10): the public object of `/tenants/me`, the body of
 * its update and the stored row, with their types derived from them.
 */
import { DateColumn, Nullable, Type, iso, objectId, textSchema, timestampProperties, updateBody, type Static } from '../kernel/schemas.js';

/** The public tenant object: the account that owns every object a token can reach. */
export const Tenant = Type.Object({
  id: objectId('ten'),
  object: Type.Literal('tenant'),
  name: Type.String(),
  description: Nullable(Type.String(), { description: 'Free text about the account; null until set.' }),
  livemode: Type.Boolean({ description: 'False for the test-mode tenant that test clients act in (docs/api.md section 15).' }),
  ...timestampProperties,
});

/** `PATCH`/`PUT /tenants/me` body. */
export const TenantUpdate = updateBody({
  name: textSchema(200, 'Name of the account.'),
  description: Nullable(textSchema(1000, 'Free text about the account; null clears it.')),
});

/** A row of `tenants` (migrations 001_core, 016_tenant_description, 025 and 050_test_mode). */
export const TenantRow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  /** False for a test-mode tenant (migration 050_test_mode, docs/api.md section 15). */
  livemode: Type.Boolean(),
  /** The live tenant a test-mode tenant is paired with; null for a live tenant. */
  live_tenant_id: Nullable(Type.String()),
  /** How far the tenant's clock runs ahead of the database's, seconds (only a test tenant's). */
  clock_offset_seconds: Type.Union([Type.Number(), Type.String()]),
  created_at: DateColumn,
  updated_at: DateColumn,
});

export type Tenant = Static<typeof Tenant>;
export type TenantUpdate = Static<typeof TenantUpdate>;
export type TenantRow = Static<typeof TenantRow>;

/** Maps a `tenants` row to its public shape (timestamps RFC 3339 UTC). */
export function tenantFromRow(row: TenantRow): Tenant {
  return {
    id: row.id,
    object: 'tenant',
    name: row.name,
    description: row.description ?? null,
    livemode: row.livemode,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
