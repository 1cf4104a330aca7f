/**
 * Customers (CONTRACT section 5): the people and companies who owe debts. Personal data: never
 * logged, and visible only to the owning tenant.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { ApiError } from '@dms/errors';
import { recordEvent } from '../db/outbox.js';
import { findOwned, tenantRows } from '../db/scoped.js';
import type { JsonSchema } from '../http/validation.js';
import { iso, metadataPatchSchema, metadataSchema, textSchema, timestampProperties } from './schema-parts.js';
import { mergeMetadata } from './metadata.js';
import { deletedObject, type DeletedObject } from './deleted.js';

/** Values of `kind`: a person (first/last name, date of birth) or a company (full name). */
export const CUSTOMER_KINDS = ['individual', 'company'] as const;
/** Values of `contact_details[].type`. */
export const CONTACT_TYPES = ['email', 'phone_number', 'mobile_number', 'address'] as const;
/** Values of `contact_details[].usage`. */
export const CONTACT_USAGES = ['personal', 'work', 'billing', 'other'] as const;

/** One entry of `contact_details` (stored as JSONB on the customer row). */
export interface ContactDetail {
  type: (typeof CONTACT_TYPES)[number];
  value: string;
  primary: boolean;
  usage: (typeof CONTACT_USAGES)[number] | null;
}

/** A row of `customers`; soft-deleted rows keep `deleted_at`. */
export interface CustomerRow {
  id: string;
  tenant_id: string;
  kind: (typeof CUSTOMER_KINDS)[number];
  full_name: string | null;
  first_name: string | null;
  last_name: string | null;
  date_of_birth: string | null;
  preferred_locale: string | null;
  contact_details: ContactDetail[];
  metadata: Record<string, string>;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The public customer object. */
export interface Customer {
  id: string;
  object: 'customer';
  kind: CustomerRow['kind'];
  full_name: string | null;
  first_name: string | null;
  last_name: string | null;
  date_of_birth: string | null;
  preferred_locale: string | null;
  contact_details: ContactDetail[];
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

const nullableText = (max: number, description: string): JsonSchema => ({ ...textSchema(max, description), type: ['string', 'null'] });

const contactDetailSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'value'],
  properties: {
    type: { type: 'string', enum: [...CONTACT_TYPES] },
    value: textSchema(500, 'The address, number or postal address.'),
    primary: { type: 'boolean', description: 'The preferred contact of its type.' },
    usage: { type: ['string', 'null'], enum: [...CONTACT_USAGES, null] },
  },
  if: { properties: { type: { const: 'email' } } },
  then: { properties: { value: { type: 'string', format: 'email' } } },
};

const fields = {
  kind: { type: 'string', enum: [...CUSTOMER_KINDS] },
  full_name: nullableText(300, 'Full name; derived from first and last name when omitted.'),
  first_name: nullableText(150, 'Given name (individuals).'),
  last_name: nullableText(150, 'Family name (individuals).'),
  date_of_birth: { type: ['string', 'null'], format: 'date', description: 'ISO 8601 date (individuals).' },
  preferred_locale: { type: ['string', 'null'], pattern: '^[a-z]{2,3}(-[A-Z]{2})?$', description: 'BCP 47 language tag, e.g. `en-GB`.' },
  contact_details: { type: 'array', maxItems: 20, items: contactDetailSchema },
  metadata: metadataSchema,
};

/** JSON Schemas (2020-12) of the create and update bodies and of the response object. */
export const customerSchemas: { create: JsonSchema; update: JsonSchema; object: JsonSchema } = {
  create: {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: fields,
    anyOf: [{ required: ['full_name'] }, { required: ['first_name', 'last_name'] }],
  },
  update: { type: 'object', additionalProperties: false, minProperties: 1, properties: { ...fields, metadata: metadataPatchSchema } },
  object: {
    type: 'object',
    required: ['id', 'object', 'kind', 'full_name', 'contact_details', 'metadata', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['cus_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'customer' },
      ...fields,
      ...timestampProperties,
    },
  },
};

/** A validated create or update body. */
export type CustomerInput = Partial<Omit<Customer, 'id' | 'object' | 'created_at' | 'updated_at'>>;

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

/** Normalises contact details: `primary` defaults to false, `usage` to null. */
function normaliseContacts(list: Array<Partial<ContactDetail>> | undefined): ContactDetail[] {
  return (list ?? []).map((c) => ({ type: c.type!, value: c.value!, primary: c.primary ?? false, usage: c.usage ?? null }));
}

/** `full_name` as given, else "first last". */
function deriveFullName(input: Pick<CustomerInput, 'full_name' | 'first_name' | 'last_name'>): string | null {
  if (input.full_name) return input.full_name;
  const parts = [input.first_name, input.last_name].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/** Creates a customer and its `customer.created` event in one transaction. */
export async function createCustomer(db: Knex, tenantId: string, input: CustomerInput): Promise<Customer> {
  return db.transaction(async (trx) => {
    const [row] = await trx('customers')
      .insert({
        id: newId('cus'),
        tenant_id: tenantId,
        kind: input.kind,
        full_name: deriveFullName(input),
        first_name: input.first_name ?? null,
        last_name: input.last_name ?? null,
        date_of_birth: input.date_of_birth ?? null,
        preferred_locale: input.preferred_locale ?? null,
        contact_details: JSON.stringify(normaliseContacts(input.contact_details)),
        metadata: JSON.stringify(input.metadata ?? {}),
      })
      .returning('*');
    const customer = toCustomer(row as CustomerRow);
    await recordEvent(trx, tenantId, 'customer.created', customer);
    return customer;
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
export async function updateCustomer(db: Knex, tenantId: string, id: string, input: CustomerInput): Promise<Customer> {
  return db.transaction(async (trx) => {
    const current = await findOwned<CustomerRow>(trx, 'customers', tenantId, id, { forUpdate: true });
    const changes: Record<string, unknown> = { updated_at: trx.fn.now(), full_name: updatedFullName(current, input) };
    for (const field of ['kind', 'first_name', 'last_name', 'date_of_birth', 'preferred_locale'] as const) {
      if (input[field] !== undefined) changes[field] = input[field];
    }
    if (input.contact_details !== undefined) changes.contact_details = JSON.stringify(normaliseContacts(input.contact_details));
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
    const [row] = await tenantRows(trx, 'customers', tenantId).where('customers.id', current.id).update(changes).returning('*');
    const customer = toCustomer(row as CustomerRow);
    await recordEvent(trx, tenantId, 'customer.updated', customer);
    return customer;
  });
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
