/**
 * Customers (docs/api.md sections 5 and 10): the people and companies who owe debts. Personal
 * data: never logged, and visible only to the owning tenant. Written through the shared skeleton
 * (kernel/owned.ts); what is particular here is the derived `full_name`, the contact details (objects
 * of their own, embedded in the customer and read in the same query) and the soft delete. The
 * customer's event is recorded after the write with the details embedded, then the details' own.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../kernel/owned.js';
import { recordEvent } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { deletedObject, iso, type DeletedObject } from '../kernel/schemas.js';
import { contactDetailsColumn, recordDetailEvents, toContactDetail, type DetailEvent } from '../contact-details/store.js';
import { createCustomerDetails, replaceCustomerDetails } from './contacts.js';
import { customersResource } from './resource.js';
import { birthDateColumns, birthDateOf } from './birth-dates.js';
import { debtsResource } from '../debts/resource.js';
import { ENGINE_STATUSES, type DebtStatus } from '../debts/states.js';
import { preferencesColumn, stampPreferences, writePreferences } from './preferences.js';
import type { Customer, CustomerCreate, CustomerInput, CustomerRow, PreferenceActor } from './schemas.js';

/** Maps a row to the public object. */
export function toCustomer(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    kind: row.kind,
    full_name: row.full_name,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: birthDateOf(row),
    preferred_locale: row.preferred_locale,
    contact_preferences: row.contact_preferences ?? null,
    contact_details: (row.contact_details ?? []).map(toContactDetail),
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

// The skeleton writes the row; the event is recorded here once the details are written too.
const customers: OwnedResource<CustomerRow, CustomerRow, typeof customersResource> = { resource: customersResource, toObject: (row) => row };

/** Makes a query of customers select their columns plus their visible contact details (`contact_details`). */
export const withContactDetails = (db: Knex | Knex.Transaction) => (q: Knex.QueryBuilder) => void q.select('customers.*', contactDetailsColumn(db));

/**
 * Loads the tenant's customer `id` with its contact details.
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's)
 */
export async function loadCustomer(db: Knex | Knex.Transaction, tenantId: string, id: string): Promise<Customer> {
  return toCustomer(await findOwned<CustomerRow>(db, customersResource, tenantId, id, { select: withContactDetails(db) }));
}

/** Records the customer's event (details embedded), then the details' events, in `trx`. */
async function recordCustomerEvents(
  trx: Knex.Transaction,
  tenantId: string,
  type: 'customer.created' | 'customer.updated',
  id: string,
  details: DetailEvent[],
): Promise<Customer> {
  const customer = await loadCustomer(trx, tenantId, id);
  await recordEvent(trx, customersResource, tenantId, type, customer);
  await recordDetailEvents(trx, tenantId, details);
  return customer;
}

/** `full_name` as given, else "first last". */
export function deriveFullName(input: Pick<CustomerInput, 'full_name' | 'first_name' | 'last_name'>): string | null {
  if (input.full_name) return input.full_name;
  const parts = [input.first_name, input.last_name].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/**
 * Creates a customer (`kind` defaults to `individual`) with its contact details, and the events
 * `customer.created` then `customer_contact_detail.created`, in one transaction.
 * @throws ApiError 400 `validation_failed` naming `contact_details[i].value`
 */
export function createCustomer(db: Knex, tenantId: string, input: CustomerCreate): Promise<Customer> {
  return db.transaction(async (trx) => {
    const row = await createOwned(trx, tenantId, customers, {
      kind: input.kind ?? 'individual',
      full_name: deriveFullName(input),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      ...birthDateColumns(input.date_of_birth ?? null),
      preferred_locale: input.preferred_locale ?? null,
      contact_preferences: preferencesColumn(stampPreferences(input.contact_preferences ?? null, 'api')),
      metadata: input.metadata,
    });
    const details = await createCustomerDetails(trx, tenantId, row, input.contact_details ?? []);
    return recordCustomerEvents(trx, tenantId, 'customer.created', row.id, details);
  });
}

/**
 * The `full_name` after an update: the given one; else, when the name was derived from first and
 * last name (or `null` was given), derived again from the updated parts.
 * @throws ApiError 400 `validation_failed` (param `full_name`) when no name would remain
 */
function updatedFullName(current: CustomerRow, input: CustomerInput): string {
  const first = input.first_name !== undefined ? input.first_name : current.first_name;
  const last = input.last_name !== undefined ? input.last_name : current.last_name;
  let name: string | null;
  if (input.full_name) name = input.full_name;
  else if (input.full_name === null || current.full_name === deriveFullName({ first_name: current.first_name, last_name: current.last_name })) {
    name = deriveFullName({ first_name: first, last_name: last });
  } else name = current.full_name;
  if (!name) {
    const message = 'full_name is required when first_name and last_name are not both set';
    throw new ApiError('validation_failed', message, { param: 'full_name', errors: [{ param: 'full_name', message }] });
  }
  return name;
}

/**
 * Updates a customer (`PATCH`/`PUT`): given fields replace (`contact_details` as the whole set,
 * see contacts.ts), `metadata` merges; writes `customer.updated` (and the details' events) in the
 * same transaction.
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's), 400 `validation_failed`
 */
export function updateCustomer(db: Knex, tenantId: string, id: string, input: CustomerInput): Promise<Customer> {
  return db.transaction(async (trx) => {
    let details: DetailEvent[] = [];
    const row = await updateOwned(
      trx,
      tenantId,
      customers,
      id,
      async (current, t) => {
        // Numbers are read in the region of the locale being set, if one is.
        const locale = input.preferred_locale !== undefined ? input.preferred_locale : current.preferred_locale;
        if (input.contact_details !== undefined)
          details = await replaceCustomerDetails(t, tenantId, { id: current.id, preferred_locale: locale }, input.contact_details);
        const preferences =
          input.contact_preferences !== undefined ? { contact_preferences: preferencesColumn(stampPreferences(input.contact_preferences, 'api')) } : {};
        return {
          ...givenFields(input, ['kind', 'first_name', 'last_name', 'preferred_locale']),
          ...(input.date_of_birth !== undefined ? birthDateColumns(input.date_of_birth) : {}),
          ...preferences,
          full_name: updatedFullName(current, input),
        };
      },
      input.metadata,
    );
    return recordCustomerEvents(trx, tenantId, 'customer.updated', row.id, details);
  });
}

/**
 * Sets the contact preferences of the tenant's customer `id` as `actor` (the portal, or an SMS
 * `STOP`) says, in its own transaction, recording `customer.updated` when they changed (see
 * preferences.ts; docs/api.md section 10, "Contact preferences").
 * @param change the new preferences (null: none expressed), or a function of the current ones
 * @returns true when they changed
 * @throws ApiError 404 `resource_missing`; 400 `validation_failed` naming `contact_preferences.hours.until`
 */
export function setContactPreferences(
  db: Knex | Knex.Transaction,
  tenantId: string,
  id: string,
  change: Parameters<typeof writePreferences>[3],
  actor: PreferenceActor,
): Promise<boolean> {
  return db.transaction((trx) =>
    writePreferences(trx, tenantId, id, change, actor, (t, tenant, customer) => recordCustomerEvents(t, tenant, 'customer.updated', customer, [])),
  );
}

/** Statuses of a debt the collection engine takes in or works (docs/api.md sections 12 and 13): its customer cannot be deleted meanwhile. */
const WORKED_BY_ENGINE: readonly DebtStatus[] = ['prepared', 'adjusted', 'resumed', ...ENGINE_STATUSES.filter((s) => s !== 'process_exhausted')];

/**
 * Deletes a customer softly (`deleted_at` set): it leaves lists, counts, search and retrieval, while
 * debts that reference it keep their history. Writes `customer.deleted` with the last state.
 * @throws ApiError 404 `resource_missing` (unknown, already deleted, or another tenant's); 409
 *   `resource_conflict` naming the debts the collection engine is working (withdraw or pause them first)
 */
export async function deleteCustomer(db: Knex, tenantId: string, id: string): Promise<DeletedObject<'customer'>> {
  return db.transaction(async (trx) => {
    const current = await findOwned<CustomerRow>(trx, customersResource, tenantId, id, { forUpdate: true, select: withContactDetails(trx) });
    const worked = (await tenantRows(trx, debtsResource, tenantId)
      .where('debts.customer_id', current.id)
      .whereIn('debts.status', WORKED_BY_ENGINE)
      .orderBy('debts.id')
      .limit(20)
      .pluck('debts.id')) as string[];
    if (worked.length)
      throw new ApiError(
        'resource_conflict',
        `The collection engine is working debts of this customer: ${worked.join(', ')}. Withdraw or pause them before deleting the customer.`,
        { param: 'id' },
      );
    const [row] = await tenantRows(trx, customersResource, tenantId)
      .where('customers.id', current.id)
      .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*');
    await recordEvent(trx, customersResource, tenantId, 'customer.deleted', toCustomer({ ...(row as CustomerRow), contact_details: current.contact_details }));
    return deletedObject('customer', current.id);
  });
}
