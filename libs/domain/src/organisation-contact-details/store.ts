/**
 * An organisation's contact details (docs/api.md section 15): every write locks the organisation
 * row first, so "at most one primary per type" (a new primary demotes the old) is kept by one writer
 * at a time per organisation, backed by a partial unique index (migration 065). Each write records
 * its events (`organisation_contact_detail.created` / `.updated` / `.deleted`, demotions first) in
 * its transaction. Values are checked and normalised as a customer's are (a national telephone
 * number is read as GB). The row-level writes here return their events for the caller to record
 * (the organisation's own event, when there is one, goes first: organisation-writes.ts).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { DEFAULT_PHONE_REGION, storedValue } from '../contact-details/values.js';
import { mergeMetadata } from '../kernel/metadata.js';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { iso } from '../kernel/schemas.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import { organisationContactDetailsResource } from './resource.js';
import type { OrganisationContactDetail, OrganisationContactDetailCreate, OrganisationContactDetailRow, OrganisationContactDetailUpdate } from './schemas.js';

const resource = organisationContactDetailsResource;
const TABLE = resource.table;

/** A detail row as stored, or as aggregated into JSON (timestamps then arrive as strings). */
export type OrganisationContactDetailRowLike = Omit<OrganisationContactDetailRow, 'created_at' | 'updated_at'> & {
  created_at: Date | string;
  updated_at: Date | string;
};

/** Maps a row to the public object. */
export function toOrganisationContactDetail(row: OrganisationContactDetailRowLike): OrganisationContactDetail {
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

/** A change to record as an event once the caller's own event is written. */
export interface OrganisationDetailEvent {
  type: EventOf<typeof organisationContactDetailsResource>;
  object: OrganisationContactDetail;
}

/** Records `events` in order (same transaction). */
export async function recordOrganisationDetailEvents(trx: Knex.Transaction, tenantId: string, events: OrganisationDetailEvent[]): Promise<void> {
  for (const e of events) await recordEvent(trx, resource, tenantId, e.type, e.object);
}

/**
 * The stored columns of a value (text, or the address as JSON), checked against its type.
 * @throws ApiError 400 `validation_failed` naming `param`
 */
function valueColumns(type: OrganisationContactDetailRow['type'], value: unknown, param = 'value') {
  const stored = storedValue(type, value, DEFAULT_PHONE_REGION, param);
  return { value: stored.value, address: stored.address === null ? null : JSON.stringify(stored.address) };
}

/** Locks the tenant's organisation `organisationId`. @throws ApiError 404 `resource_missing` */
async function lockOrganisation(trx: Knex.Transaction, tenantId: string, organisationId: string): Promise<void> {
  await findOwned(trx, organisationsResource, tenantId, organisationId, { forUpdate: true });
}

/** The tenant's visible details of one organisation. */
const detailsOf = (trx: Knex.Transaction, tenantId: string, organisationId: string) =>
  tenantRows(trx, resource, tenantId).where(`${TABLE}.organisation_id`, organisationId);

/** Writes `changes` to detail `id` (of a locked organisation) and returns its `event`. */
export async function writeOrganisationDetail(
  trx: Knex.Transaction,
  tenantId: string,
  id: string,
  changes: Record<string, unknown>,
  type: OrganisationDetailEvent['type'],
): Promise<OrganisationDetailEvent> {
  const [row] = (await tenantRows(trx, resource, tenantId)
    .where(`${TABLE}.id`, id)
    .update({ ...changes, updated_at: trx.fn.now() })
    .returning('*')) as OrganisationContactDetailRow[];
  return { type, object: toOrganisationContactDetail(row!) };
}

/** Demotes the organisation's current primary of `type` (other than `keepId`); returns the `updated` events. */
async function demotePrimary(
  trx: Knex.Transaction,
  tenantId: string,
  organisationId: string,
  type: string,
  keepId: string | null,
): Promise<OrganisationDetailEvent[]> {
  const q = detailsOf(trx, tenantId, organisationId).where({ [`${TABLE}.type`]: type, [`${TABLE}.primary`]: true });
  if (keepId) q.whereNot(`${TABLE}.id`, keepId);
  const rows = (await q.update({ primary: false, updated_at: trx.fn.now() }).returning('*')) as OrganisationContactDetailRow[];
  return rows.map((r) => ({ type: 'organisation_contact_detail.updated', object: toOrganisationContactDetail(r) }));
}

/**
 * Inserts a detail of the locked organisation (value checked and normalised, primary demoting the old).
 * @param param name of the input in the request, for errors (`contact_details[0]` on organisation create)
 * @returns the events to record, `created` last
 * @throws ApiError 400 `validation_failed` naming `${param}.value`
 */
export async function insertOrganisationDetail(
  trx: Knex.Transaction,
  tenantId: string,
  organisationId: string,
  input: OrganisationContactDetailCreate,
  param = '',
): Promise<OrganisationDetailEvent[]> {
  const columns = valueColumns(input.type, input.value, param ? `${param}.value` : 'value');
  const demoted = input.primary ? await demotePrimary(trx, tenantId, organisationId, input.type, null) : [];
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
  return [...demoted, { type: 'organisation_contact_detail.created', object: toOrganisationContactDetail(row!) }];
}

/** The visible details of a locked organisation, oldest first. */
export async function liveOrganisationDetails(trx: Knex.Transaction, tenantId: string, organisationId: string): Promise<OrganisationContactDetailRow[]> {
  return (await detailsOf(trx, tenantId, organisationId).orderBy(`${TABLE}.seq`)) as OrganisationContactDetailRow[];
}

/**
 * Loads visible detail `id` of organisation `organisationId`.
 * @throws ApiError 404 `resource_missing` when it is not the tenant's, is deleted, or belongs to another organisation
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
    const events = await insertOrganisationDetail(trx, tenantId, organisationId, input);
    await recordOrganisationDetailEvents(trx, tenantId, events);
    return events[events.length - 1]!.object;
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
    const changes: Record<string, unknown> = {};
    if (input.value !== undefined) Object.assign(changes, valueColumns(current.type, input.value));
    if (input.primary !== undefined) changes.primary = input.primary;
    if (input.usage !== undefined) changes.usage = input.usage;
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
    const demoted = input.primary ? await demotePrimary(trx, tenantId, organisationId, current.type, id) : [];
    const events = [...demoted, await writeOrganisationDetail(trx, tenantId, id, changes, 'organisation_contact_detail.updated')];
    await recordOrganisationDetailEvents(trx, tenantId, events);
    return events[events.length - 1]!.object;
  });
}
