/**
 * An organisation's contact details (docs/api.md section 15): every write locks the organisation
 * row first, so "at most one primary per type" (a new primary demotes the old) is kept by one writer
 * at a time per organisation, backed by a partial unique index (migration 065). Each write records
 * its events (`organisation_contact_detail.created` / `.updated`, demotions first) in its
 * transaction. Values are checked and normalised as a customer's are (a national telephone number
 * is read as GB).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { DEFAULT_PHONE_REGION, storedValue } from '../contact-details/values.js';
import { mergeMetadata } from '../kernel/metadata.js';
import { recordEvent } from '../kernel/outbox.js';
import { iso } from '../kernel/schemas.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import { organisationContactDetailsResource } from './resource.js';
import type { OrganisationContactDetail, OrganisationContactDetailCreate, OrganisationContactDetailRow, OrganisationContactDetailUpdate } from './schemas.js';

const resource = organisationContactDetailsResource;
const TABLE = resource.table;

/** Maps a row to the public object. */
export function toOrganisationContactDetail(row: OrganisationContactDetailRow): OrganisationContactDetail {
  return {
    id: row.id,
    object: 'organisation_contact_detail',
    organisation: row.organisation_id,
    type: row.type,
    value: row.type === 'address' ? row.address! : row.value!,
    primary: row.primary,
    usage: row.usage,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The stored columns of a value (text, or the address as JSON), checked against its type. */
function valueColumns(type: OrganisationContactDetailRow['type'], value: unknown) {
  const stored = storedValue(type, value, DEFAULT_PHONE_REGION, 'value');
  return { value: stored.value, address: stored.address === null ? null : JSON.stringify(stored.address) };
}

/** Locks the tenant's organisation `organisationId`. @throws ApiError 404 `resource_missing` */
async function lockOrganisation(trx: Knex.Transaction, tenantId: string, organisationId: string): Promise<void> {
  await findOwned(trx, organisationsResource, tenantId, organisationId, { forUpdate: true });
}

/** Demotes the organisation's current primary of `type` (other than `keepId`), recording each `updated` event. */
async function demotePrimary(trx: Knex.Transaction, tenantId: string, organisationId: string, type: string, keepId: string | null): Promise<void> {
  const q = tenantRows(trx, resource, tenantId).where({ [`${TABLE}.organisation_id`]: organisationId, [`${TABLE}.type`]: type, [`${TABLE}.primary`]: true });
  if (keepId) q.whereNot(`${TABLE}.id`, keepId);
  const rows = (await q.update({ primary: false, updated_at: trx.fn.now() }).returning('*')) as OrganisationContactDetailRow[];
  for (const row of rows) await recordEvent(trx, resource, tenantId, 'organisation_contact_detail.updated', toOrganisationContactDetail(row));
}

/**
 * Loads detail `id` of organisation `organisationId`.
 * @throws ApiError 404 `resource_missing` when it is not the tenant's or belongs to another organisation
 */
export async function findOrganisationContactDetail(
  db: Knex | Knex.Transaction,
  tenantId: string,
  organisationId: string,
  id: string,
  forUpdate = false,
): Promise<OrganisationContactDetailRow> {
  const row = await findOwned<OrganisationContactDetailRow>(db, resource, tenantId, id, { forUpdate });
  if (row.organisation_id !== organisationId) throw new ApiError('resource_missing', `No such organisation contact detail: '${id}'`);
  return row;
}

/**
 * `POST /organisations/{organisationId}/contact_details`: creates a detail (`primary: true`
 * demoting the current primary of its type) and records its events.
 * @throws ApiError 404 `resource_missing` (the organisation), 400 `validation_failed` (`value`)
 */
export function createOrganisationContactDetail(
  db: Knex,
  tenantId: string,
  organisationId: string,
  input: OrganisationContactDetailCreate,
): Promise<OrganisationContactDetail> {
  return db.transaction(async (trx) => {
    await lockOrganisation(trx, tenantId, organisationId);
    const columns = valueColumns(input.type, input.value);
    if (input.primary) await demotePrimary(trx, tenantId, organisationId, input.type, null);
    const [row] = (await trx(TABLE)
      .insert({
        id: newId(resource.idPrefix),
        tenant_id: tenantId,
        organisation_id: organisationId,
        type: input.type,
        ...columns,
        primary: input.primary ?? false,
        usage: input.usage ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
      })
      .returning('*')) as OrganisationContactDetailRow[];
    const created = toOrganisationContactDetail(row!);
    await recordEvent(trx, resource, tenantId, 'organisation_contact_detail.created', created);
    return created;
  });
}

/**
 * `PATCH`/`PUT …/contact_details/{id}`: given fields replace (`value` checked against the stored
 * type), `metadata` merges; `primary: true` demotes the current primary of the type. Records
 * `organisation_contact_detail.updated`.
 * @throws ApiError 404 `resource_missing`, 400 `validation_failed` (`value`)
 */
export function updateOrganisationContactDetail(
  db: Knex,
  tenantId: string,
  organisationId: string,
  id: string,
  input: OrganisationContactDetailUpdate,
): Promise<OrganisationContactDetail> {
  return db.transaction(async (trx) => {
    await lockOrganisation(trx, tenantId, organisationId);
    const current = await findOrganisationContactDetail(trx, tenantId, organisationId, id, true);
    const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (input.value !== undefined) Object.assign(changes, valueColumns(current.type, input.value));
    if (input.primary !== undefined) changes.primary = input.primary;
    if (input.usage !== undefined) changes.usage = input.usage;
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
    if (input.primary) await demotePrimary(trx, tenantId, organisationId, current.type, id);
    const [row] = (await tenantRows(trx, resource, tenantId).where(`${TABLE}.id`, id).update(changes).returning('*')) as OrganisationContactDetailRow[];
    const updated = toOrganisationContactDetail(row!);
    await recordEvent(trx, resource, tenantId, 'organisation_contact_detail.updated', updated);
    return updated;
  });
}
