/**
 * Contact details (docs/api.md section 10): the ways to reach a customer, as objects under it.
 * Personal data: never logged. The writes here take a customer row the caller has locked (the
 * customers store does, for each of its writes), so the rule "at most one primary per type" (a new
 * primary demotes the old) is applied by one writer at a time per customer; a partial unique
 * index (migration 015) backs it. `DELETE` is soft: `status: deleted`, gone from the list and the
 * customer's embedded `contact_details`, still retrievable.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { mergeMetadata } from '../kernel/metadata.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { contactDetailsResource } from './resource.js';
import { iso } from '../kernel/schemas.js';
import type { ContactDetail, ContactDetailCreate, ContactDetailRow, ContactDetailUpdate } from './schemas.js';
import { phoneRegion, storedValue } from './values.js';

const TABLE = contactDetailsResource.table;

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
  type: EventOf<typeof contactDetailsResource>;
  object: ContactDetail;
}

/** Records `events` in order (same transaction). */
export async function recordDetailEvents(trx: Knex.Transaction, tenantId: string, events: DetailEvent[]): Promise<void> {
  for (const e of events) await recordEvent(trx, contactDetailsResource, tenantId, e.type, e.object);
}

/** The tenant's details of one customer. */
const detailsOf = (trx: Knex.Transaction, tenantId: string, customerId: string) =>
  tenantRows(trx, contactDetailsResource, tenantId).where(`${TABLE}.customer_id`, customerId);

/** Writes `changes` to detail `id` (locked by the caller) and returns its `event`. */
async function writeDetail(
  trx: Knex.Transaction,
  tenantId: string,
  id: string,
  changes: Record<string, unknown>,
  type: DetailEvent['type'],
): Promise<DetailEvent> {
  const [row] = (await tenantRows(trx, contactDetailsResource, tenantId)
    .where(`${TABLE}.id`, id)
    .update({ ...changes, updated_at: trx.fn.now() })
    .returning('*')) as ContactDetailRow[];
  return { type, object: toContactDetail(row!) };
}

/** Demotes the current primary of `type` (other than `keepId`); returns the `updated` events. */
async function demotePrimary(trx: Knex.Transaction, tenantId: string, customerId: string, type: string, keepId: string | null): Promise<DetailEvent[]> {
  const q = detailsOf(trx, tenantId, customerId).where({ type, primary: true }).whereNot('status', 'deleted');
  if (keepId) q.whereNot('id', keepId);
  const rows = (await q.update({ primary: false, updated_at: trx.fn.now() }).returning('*')) as ContactDetailRow[];
  return rows.map((r) => ({ type: 'customer_contact_detail.updated', object: toContactDetail(r) }));
}

/** The stored columns of a value (text, or the address as JSON), checked against its type. */
function valueColumns(type: ContactDetailRow['type'], value: ContactDetailCreate['value'], customer: CustomerRef, param: string) {
  const stored = storedValue(type, value, phoneRegion(customer.preferred_locale), param);
  return { value: stored.value, address: stored.address === null ? null : JSON.stringify(stored.address) };
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
  const columns = valueColumns(input.type, input.value, customer, param ? `${param}.value` : 'value');
  const demoted = input.primary ? await demotePrimary(trx, tenantId, customer.id, input.type, null) : [];
  const [row] = (await trx(TABLE)
    .insert({
      id: newId(contactDetailsResource.idPrefix),
      tenant_id: tenantId,
      customer_id: customer.id,
      type: input.type,
      ...columns,
      primary: input.primary ?? false,
      usage: input.usage ?? null,
      source: input.source ?? 'client',
      status: input.status ?? 'unverified',
      metadata: JSON.stringify(input.metadata ?? {}),
    })
    .returning('*')) as ContactDetailRow[];
  return [...demoted, { type: 'customer_contact_detail.created', object: toContactDetail(row!) }];
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
  const row = await findOwned<ContactDetailRow>(db, contactDetailsResource, tenantId, id, { forUpdate });
  if (row.customer_id !== customerId) throw new ApiError('resource_missing', `No such contact detail: '${id}'`);
  return row;
}

/** Locks detail `id` of the locked `customer`, refusing a deleted one (409 `invalid_state_transition`). */
async function lockLiveDetail(trx: Knex.Transaction, tenantId: string, customer: CustomerRef, id: string): Promise<ContactDetailRow> {
  const row = await findContactDetail(trx, tenantId, customer.id, id, true);
  if (row.status === 'deleted') throw new ApiError('invalid_state_transition', `Contact detail '${row.id}' is deleted and can no longer be changed.`);
  return row;
}

/**
 * Changes detail `id` of the locked `customer`: given fields replace, `metadata` merges;
 * `primary: true` demotes the current primary of the type.
 * @returns the events to record (demotions, then `updated` last)
 * @throws ApiError 404 `resource_missing`, 400 `validation_failed` (`value` for the stored type),
 *   409 `invalid_state_transition` for a deleted detail
 */
export async function changeContactDetail(
  trx: Knex.Transaction,
  tenantId: string,
  customer: CustomerRef,
  id: string,
  input: ContactDetailUpdate,
): Promise<DetailEvent[]> {
  const current = await lockLiveDetail(trx, tenantId, customer, id);
  const changes: Record<string, unknown> = {};
  if (input.value !== undefined) Object.assign(changes, valueColumns(current.type, input.value, customer, 'value'));
  for (const f of ['primary', 'usage', 'source', 'status'] as const) if (input[f] !== undefined) changes[f] = input[f];
  if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
  const demoted = input.primary ? await demotePrimary(trx, tenantId, customer.id, current.type, id) : [];
  return [...demoted, await writeDetail(trx, tenantId, id, changes, 'customer_contact_detail.updated')];
}

/**
 * Keeps detail `row` (locked, live) as it is but for the given settings (the whole-set replacement
 * of a customer's details, which matched it to an entry).
 * @returns its `updated` event, or undefined when nothing changes
 */
export async function keepContactDetail(
  trx: Knex.Transaction,
  tenantId: string,
  row: ContactDetailRow,
  next: Pick<ContactDetailRow, 'primary' | 'usage' | 'source' | 'status'>,
  metadata: Record<string, string> | undefined,
): Promise<DetailEvent | undefined> {
  if (next.primary === row.primary && next.usage === row.usage && next.source === row.source && next.status === row.status && metadata === undefined)
    return undefined;
  return writeDetail(
    trx,
    tenantId,
    row.id,
    { ...next, ...(metadata === undefined ? {} : { metadata: JSON.stringify(metadata) }) },
    'customer_contact_detail.updated',
  );
}

/**
 * Deletes detail `id` of the locked `customer` softly: `status: deleted`, no longer primary.
 * @returns its `deleted` event (the detail as it now is)
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` when already deleted
 */
export async function removeContactDetail(trx: Knex.Transaction, tenantId: string, customer: CustomerRef, id: string): Promise<DetailEvent> {
  await lockLiveDetail(trx, tenantId, customer, id);
  return softDeleteDetail(trx, tenantId, id);
}

/** Soft-deletes a locked, live detail row; returns its `deleted` event. */
export function softDeleteDetail(trx: Knex.Transaction, tenantId: string, id: string): Promise<DetailEvent> {
  return writeDetail(trx, tenantId, id, { status: 'deleted', primary: false }, 'customer_contact_detail.deleted');
}

/** The visible details of a locked customer, oldest first. */
export async function liveDetails(trx: Knex.Transaction, tenantId: string, customerId: string): Promise<ContactDetailRow[]> {
  return (await detailsOf(trx, tenantId, customerId).whereNot('status', 'deleted').orderBy('seq')) as ContactDetailRow[];
}
