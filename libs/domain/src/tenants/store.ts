/**
 * Tenants (docs/api.md sections 2, 5 and 10): created by operators with the issuer's admin CLI,
 * read and renamed by their own tokens (`/tenants/me`). Both sides map rows with `tenantFromRow`,
 * so the CLI and the API can never show different shapes.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { givenFields } from '../kernel/owned.js';
import { mergeMetadata } from '../kernel/metadata.js';
import { tenantsResource } from './resource.js';
import { tenantFromRow, type Tenant, type TenantRow, type TenantUpdate } from './schemas.js';

const missing = (tenantId: string) => new ApiError('resource_missing', `No such tenant: '${tenantId}'`);

/**
 * Creates a tenant (admin CLI).
 * @param name display name, 1..200 characters
 * @throws Error when the name is empty or too long (an operator's mistake, printed by the CLI)
 */
export async function createTenant(db: Knex, name: string): Promise<Tenant> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new Error('tenant name must be 1 to 200 characters');
  const [row] = await db<TenantRow>(tenantsResource.table)
    .insert({ id: newId(tenantsResource.idPrefix), name: trimmed })
    .returning('*');
  return tenantFromRow(row as TenantRow);
}

/**
 * The test-mode tenant paired with live tenant `liveTenantId` (docs/api.md section 15), created on
 * first use with the live tenant's name; test clients belong to it, so its data never meets the
 * live tenant's. Concurrent first uses agree on one (the pair is unique).
 * @throws Error when `liveTenantId` is unknown or is itself a test tenant (an operator's mistake)
 */
export async function testTenantOf(db: Knex, liveTenantId: string): Promise<Tenant> {
  const live = await db<TenantRow>(tenantsResource.table).where({ id: liveTenantId }).first();
  if (!live) throw new Error(`no tenant ${liveTenantId}`);
  if (!live.livemode) throw new Error(`${liveTenantId} is a test-mode tenant; name its live tenant ${String(live.live_tenant_id)}`);
  await db(tenantsResource.table)
    .insert({ id: newId(tenantsResource.idPrefix), name: live.name, livemode: false, live_tenant_id: liveTenantId })
    .onConflict('live_tenant_id')
    .ignore();
  const row = await db<TenantRow>(tenantsResource.table).where({ live_tenant_id: liveTenantId }).first();
  return tenantFromRow(row!);
}

/**
 * Loads the tenant `tenantId` (from a verified token).
 * @returns the public tenant object `{id, object: "tenant", name, description, created_at, updated_at}`
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists
 */
export async function getTenant(db: Knex, tenantId: string): Promise<Tenant> {
  const row = await db<TenantRow>(tenantsResource.table).where({ id: tenantId }).first();
  if (!row) throw missing(tenantId);
  return tenantFromRow(row);
}

/**
 * Updates the tenant (`PATCH /tenants/me`): `name` and `description` replace (`description: null`
 * clears), each given key of `configurations` replaces that key, `metadata` merges (docs/api.md
 * sections 10 and 15), under the row's lock.
 * @throws ApiError 404 `resource_missing` if the tenant no longer exists; 400 `validation_failed`
 *   (param `metadata`) past 50 keys
 */
export async function updateTenant(db: Knex, tenantId: string, input: TenantUpdate): Promise<Tenant> {
  return db.transaction(async (trx) => {
    const current = await trx<TenantRow>(tenantsResource.table).where({ id: tenantId }).forUpdate().first();
    if (!current) throw missing(tenantId);
    const [row] = await trx<TenantRow>(tenantsResource.table)
      .where({ id: tenantId })
      .update({
        ...givenFields(input, ['name', 'description']),
        ...(input.configurations === undefined ? {} : { configurations: JSON.stringify({ ...current.configurations, ...input.configurations }) }),
        ...(input.metadata === undefined ? {} : { metadata: JSON.stringify(mergeMetadata(current.metadata ?? {}, input.metadata)) }),
        updated_at: trx.fn.now(),
      } as Record<string, unknown>)
      .returning('*');
    return tenantFromRow(row as TenantRow);
  });
}

/**
 * The mode of tenant `tenantId` (an operator's `Tenant-Id`, docs/api.md sections 12 and 15): true
 * for a live tenant, false for a test-mode one, undefined when it does not exist.
 */
export async function tenantMode(db: Knex, tenantId: string): Promise<boolean | undefined> {
  if (tenantId.includes('\u0000')) return undefined;
  const row = await db<TenantRow>(tenantsResource.table).where({ id: tenantId }).first('livemode');
  return row?.livemode;
}
