/**
 * Contact details (docs/api.md section 10): the ways to reach a customer, as objects under it.
 * Personal data: never logged. Every write locks the customer row first, so the rule "at most one
 * primary per type" (a new primary demotes the old) is applied by one writer at a time per
 * customer; a partial unique index (migration 015) backs it. `DELETE` is soft: `status: deleted`,
 * gone from the list and the customer's embedded `contact_details`, still retrievable.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { mergeMetadata } from '../../db/metadata.js';
import { recordEvent, type EventType } from '../../db/outbox.js';
import { findOwned } from '../../db/scoped.js';
import { iso } from '../../schemas/common.js';
import type { ContactDetail, ContactDetailCreate, ContactDetailRow, ContactDetailUpdate } from './schemas.js';
import { phoneRegion, storedValue } from './values.js';

const TABLE = 'customer_contact_details';

/** A detail row as stored, or as aggregated into JSON (timestamps then arrive as strings). */
type RowLike = Omit<ContactDetailRow, 'created_at' | 'updated_at'> & { created_at: Date | string; updated_at: Date | string };

/** Maps a row to the public object. */
export function toContactDetail(row: RowLike): ContactDetail {
  return {
    id: row.id,
    object: 'contact_detail',
    customer: row.customer_id,
    type: row.type,
    value: row.type === 'address' ? row.address! : row.value!,
    primary: row.primary,
    usage: row.usage,
    source: row.source,
    status: row.status,
    metadata: row.metadata,
    created_at: iso(new Date(row.created_at))!,
    updated_at: iso(new Date(row.updated_at))!,
  };
}

/**
 * The select-list expression `contact_details`: a customer's visible details as one JSON array in
 * list order, so customers are read with their details in the same query (one query per page).
 * @param customerColumn the qualified id column of the customers being read
 */
export function contactDetailsColumn(db: Knex | Knex.Transaction, customerColumn = 'customers.id'): Knex.Raw {
  return db.raw(
    `(SELECT coalesce(jsonb_agg(to_jsonb(cd) ORDER BY cd.seq), '[]'::jsonb) FROM ?? AS cd WHERE cd.customer_id = ?? AND cd.status <> 'deleted') AS contact_details`,
    [TABLE, customerColumn],
  );
}

/** A customer row as the writes here need it (locked by the caller). */
export interface CustomerRef {
  id: string;
  preferred_locale: string | null;
}

/** A change to record as an event once the caller's own event is written. */
export interface DetailEvent {
  type: EventType;
  object: ContactDetail;
}

/** Records `events` in order (same transaction). */
export async function recordDetailEvents(trx: Knex.Transaction, tenantId: string, events: DetailEvent[]): Promise<void> {
  for (const e of events) await recordEvent(trx, tenantId, e.type, e.object);
}

/** Demotes the current primary of `type` (other than `keepId`); returns the `updated` events. */
async function demotePrimary(trx: Knex.Transaction, customerId: string, type: string, keepId: string | null): Promise<DetailEvent[]> {
  const q = trx(TABLE).where({ customer_id: customerId, type, primary: true }).whereNot('status', 'deleted');
  if (keepId) q.whereNot('id', keepId);
  const rows = (await q.update({ primary: false, updated_at: trx.fn.now() }).returning('*')) as ContactDetailRow[];
  return rows.map((r) => ({ type: 'customer_contact_detail.updated', object: toContactDetail(r) }));
}

/**
 * Inserts a detail of the locked `customer` (value checked and normalised, primary demoting the old).
 * @param param name of the input in the request, for errors (`contact_details[0]` on customer create)
 * @returns the events to record, `created` last
 * @throws ApiError 400 `validation_failed` naming `${param}.value`
 */
export async function insertContactDetail(
  trx: Knex.Transaction,
  tenantId: string,
  customer: CustomerRef,
  input: ContactDetailCreate,
  param = '',
): Promise<DetailEvent[]> {
  const stored = storedValue(input.type, input.value, phoneRegion(customer.preferred_locale), param ? `${param}.value` : 'value');
  const demoted = input.primary ? await demotePrimary(trx, customer.id, input.type, null) : [];
  const [row] = (await trx(TABLE)
    .insert({
      id: newId('cd'),
      tenant_id: tenantId,
      customer_id: customer.id,
      type: input.type,
      value: stored.value,
      address: stored.address === null ? null : JSON.stringify(stored.address),
      primary: input.primary ?? false,
      usage: input.usage ?? null,
      source: input.source ?? 'client',
      status: input.status ?? 'unverified',
      metadata: JSON.stringify(input.metadata ?? {}),
    })
    .returning('*')) as ContactDetailRow[];
  return [...demoted, { type: 'customer_contact_detail.created', object: toContactDetail(row!) }];
}

/** Locks the tenant's customer `customerId` (404 when it is not theirs or deleted). */
export function lockCustomer(trx: Knex.Transaction, tenantId: string, customerId: string): Promise<CustomerRef> {
  return findOwned<CustomerRef>(trx, 'customers', tenantId, customerId, { forUpdate: true });
}

/**
 * Loads detail `id` of customer `customerId` (deleted ones too).
 * @throws ApiError 404 `resource_missing` when it is not the tenant's or belongs to another customer
 */
export async function findContactDetail(
  db: Knex | Knex.Transaction,
  tenantId: string,
  customerId: string,
  id: string,
  forUpdate = false,
): Promise<ContactDetailRow> {
  const row = await findOwned<ContactDetailRow>(db, TABLE, tenantId, id, { forUpdate });
  if (row.customer_id !== customerId) throw new ApiError('resource_missing', `No such contact detail: '${id}'`);
  return row;
}

function refuseDeleted(row: ContactDetailRow): void {
  if (row.status === 'deleted') throw new ApiError('invalid_state_transition', `Contact detail '${row.id}' is deleted and can no longer be changed.`);
}

/**
 * `POST /customers/{customerId}/contact_details`: creates a detail and records its events.
 * @throws ApiError 404 `resource_missing` (the customer), 400 `validation_failed` (`value`)
 */
export function createContactDetail(db: Knex, tenantId: string, customerId: string, input: ContactDetailCreate): Promise<ContactDetail> {
  return db.transaction(async (trx) => {
    const customer = await lockCustomer(trx, tenantId, customerId);
    const events = await insertContactDetail(trx, tenantId, customer, input);
    await recordDetailEvents(trx, tenantId, events);
    return events[events.length - 1]!.object;
  });
}

/**
 * `PATCH`/`PUT …/contact_details/{id}`: given fields replace, `metadata` merges; `primary: true`
 * demotes the current primary of the type. Records `customer_contact_detail.updated`.
 * @throws ApiError 404 `resource_missing`, 400 `validation_failed` (`value` for the stored type),
 *   409 `invalid_state_transition` for a deleted detail
 */
export function updateContactDetail(db: Knex, tenantId: string, customerId: string, id: string, input: ContactDetailUpdate): Promise<ContactDetail> {
  return db.transaction(async (trx) => {
    const customer = await lockCustomer(trx, tenantId, customerId);
    const current = await findContactDetail(trx, tenantId, customerId, id, true);
    refuseDeleted(current);
    const changes: Record<string, unknown> = {};
    if (input.value !== undefined) {
      const stored = storedValue(current.type, input.value, phoneRegion(customer.preferred_locale));
      Object.assign(changes, { value: stored.value, address: stored.address === null ? null : JSON.stringify(stored.address) });
    }
    for (const f of ['primary', 'usage', 'source', 'status'] as const) if (input[f] !== undefined) changes[f] = input[f];
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
    const demoted = input.primary ? await demotePrimary(trx, customerId, current.type, id) : [];
    const [row] = (await trx(TABLE)
      .where({ id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')) as ContactDetailRow[];
    const object = toContactDetail(row!);
    await recordDetailEvents(trx, tenantId, [...demoted, { type: 'customer_contact_detail.updated', object }]);
    return object;
  });
}

/** Soft-deletes a locked, live detail row; returns its `deleted` event. */
export async function softDeleteDetail(trx: Knex.Transaction, id: string): Promise<DetailEvent> {
  const [row] = (await trx(TABLE).where({ id }).update({ status: 'deleted', primary: false, updated_at: trx.fn.now() }).returning('*')) as ContactDetailRow[];
  return { type: 'customer_contact_detail.deleted', object: toContactDetail(row!) };
}

/**
 * `DELETE …/contact_details/{id}`: `status: deleted` (and no longer primary); records
 * `customer_contact_detail.deleted`.
 * @returns the detail as it now is
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` when already deleted
 */
export function deleteContactDetail(db: Knex, tenantId: string, customerId: string, id: string): Promise<ContactDetail> {
  return db.transaction(async (trx) => {
    await lockCustomer(trx, tenantId, customerId);
    refuseDeleted(await findContactDetail(trx, tenantId, customerId, id, true));
    const event = await softDeleteDetail(trx, id);
    await recordDetailEvents(trx, tenantId, [event]);
    return event.object;
  });
}

/** The visible details of a locked customer, oldest first. */
export async function liveDetails(trx: Knex.Transaction, customerId: string): Promise<ContactDetailRow[]> {
  return (await trx(TABLE).where({ customer_id: customerId }).whereNot('status', 'deleted').orderBy('seq')) as ContactDetailRow[];
}
