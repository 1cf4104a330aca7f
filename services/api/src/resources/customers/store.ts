/**
 * Customers (docs/api.md section 5): the people and companies who owe debts. Personal data: never
 * logged, and visible only to the owning tenant. Written through the shared skeleton
 * (db/owned.ts); what is particular here is the derived `full_name`, the normalised contact
 * details and the soft delete.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../../db/owned.js';
import { recordEvent } from '../../db/outbox.js';
import { findOwned, tenantRows } from '../../db/scoped.js';
import { deletedObject, iso, type DeletedObject } from '../../schemas/common.js';
import type { ContactDetail, Customer, CustomerCreate, CustomerInput, CustomerRow } from './schemas.js';

/** Maps a row to the public object. */
export function toCustomer(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    kind: row.kind,
    full_name: row.full_name,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    preferred_locale: row.preferred_locale,
    contact_details: row.contact_details,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const customers: OwnedResource<CustomerRow, Customer> = {
  table: 'customers',
  idPrefix: 'cus',
  toObject: toCustomer,
  events: { created: 'customer.created', updated: 'customer.updated' },
};

/** Normalises contact details: `primary` defaults to false, `usage` to null; stored as JSON. */
function contactsColumn(list: Array<Partial<ContactDetail>> | undefined): string {
  return JSON.stringify((list ?? []).map((c) => ({ type: c.type!, value: c.value!, primary: c.primary ?? false, usage: c.usage ?? null })));
}

/** `full_name` as given, else "first last". */
function deriveFullName(input: Pick<CustomerInput, 'full_name' | 'first_name' | 'last_name'>): string | null {
  if (input.full_name) return input.full_name;
  const parts = [input.first_name, input.last_name].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/** Creates a customer and its `customer.created` event in one transaction. */
export function createCustomer(db: Knex, tenantId: string, input: CustomerCreate): Promise<Customer> {
  return createOwned(db, tenantId, customers, {
    kind: input.kind,
    full_name: deriveFullName(input),
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    date_of_birth: input.date_of_birth ?? null,
    preferred_locale: input.preferred_locale ?? null,
    contact_details: contactsColumn(input.contact_details),
    metadata: input.metadata,
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
 * Updates a customer (`PATCH`): given fields replace (`contact_details` as a whole), `metadata`
 * merges; writes `customer.updated` in the same transaction.
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's), 400 `validation_failed`
 */
export function updateCustomer(db: Knex, tenantId: string, id: string, input: CustomerInput): Promise<Customer> {
  return updateOwned(
    db,
    tenantId,
    customers,
    id,
    (current) => ({
      ...givenFields(input, ['kind', 'first_name', 'last_name', 'date_of_birth', 'preferred_locale']),
      full_name: updatedFullName(current, input),
      ...(input.contact_details !== undefined ? { contact_details: contactsColumn(input.contact_details) } : {}),
    }),
    input.metadata,
  );
}

/**
 * Deletes a customer softly (`deleted_at` set): it leaves lists, counts, search and retrieval, while
 * debts that reference it keep their history. Writes `customer.deleted` with the last state.
 * @throws ApiError 404 `resource_missing` (unknown, already deleted, or another tenant's)
 */
export async function deleteCustomer(db: Knex, tenantId: string, id: string): Promise<DeletedObject<'customer'>> {
  return db.transaction(async (trx) => {
    const current = await findOwned<CustomerRow>(trx, 'customers', tenantId, id, { forUpdate: true });
    const [row] = await tenantRows(trx, 'customers', tenantId)
      .where('customers.id', current.id)
      .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*');
    await recordEvent(trx, tenantId, 'customer.deleted', toCustomer(row as CustomerRow));
    return deletedObject('customer', current.id);
  });
}
