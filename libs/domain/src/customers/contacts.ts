/**
 * A customer's contact details (docs/api.md section 10), written through the customer: each write
 * locks the customer row first, then changes its details (contact-details/store.ts) and records
 * their events, so "at most one primary per type" is kept by one writer at a time per customer.
 *
 * `contact_details` given as a whole: on customer create each entry becomes a contact detail
 * object; on customer update the given array is the new set of visible details. Entries equal to
 * a visible detail (same type and normalised value) keep that object (and its id), updated in
 * place; visible details not given are deleted (soft); the rest are created. Within one array the
 * last primary entry of a type wins.
 */
import type { Knex } from '@dms/db';
import { findOwned } from '../kernel/scoped.js';
import type { ContactDetail, ContactDetailCreate, ContactDetailUpdate } from '../contact-details/schemas.js';
import {
  changeContactDetail,
  insertContactDetail,
  keepContactDetail,
  liveDetails,
  recordDetailEvents,
  removeContactDetail,
  softDeleteDetail,
  type CustomerRef,
  type DetailEvent,
} from '../contact-details/store.js';
import { demotionsFirst, detailKey, detailParam as param, lastPrimaryWins, matchDetails } from '../contact-details/sets.js';
import { phoneRegion, storedValue } from '../contact-details/values.js';
import { customersResource } from './resource.js';

/**
 * Creates the details given at customer create, for the customer just inserted.
 * @returns the `created` events, in the order given
 * @throws ApiError 400 `validation_failed` naming `contact_details[i].value`
 */
export async function createCustomerDetails(
  trx: Knex.Transaction,
  tenantId: string,
  customer: CustomerRef,
  list: readonly ContactDetailCreate[],
): Promise<DetailEvent[]> {
  const events: DetailEvent[] = [];
  for (const [i, input] of lastPrimaryWins(list).entries()) events.push(...(await insertContactDetail(trx, tenantId, customer, input, param(i))));
  return events;
}

/**
 * Makes `list` the customer's visible details (the customer row locked by the caller).
 * @returns the events of the changes: `deleted`, then `updated`, then `created`
 * @throws ApiError 400 `validation_failed` naming `contact_details[i].value`
 */
export async function replaceCustomerDetails(
  trx: Knex.Transaction,
  tenantId: string,
  customer: CustomerRef,
  list: readonly ContactDetailCreate[],
): Promise<DetailEvent[]> {
  const wanted = lastPrimaryWins(list);
  const region = phoneRegion(customer.preferred_locale);
  const keys = wanted.map((c, i) => detailKey(c.type, storedValue(c.type, c.value, region, `${param(i)}.value`)));
  const { kept, unmatched } = matchDetails(keys, await liveDetails(trx, tenantId, customer.id));
  const events: DetailEvent[] = [];
  for (const row of unmatched) events.push(await softDeleteDetail(trx, tenantId, row.id));
  for (const i of demotionsFirst(wanted)) {
    const row = kept[i];
    if (!row) continue;
    const input = wanted[i]!;
    const next = { primary: input.primary, usage: input.usage ?? row.usage, source: input.source ?? row.source, status: input.status ?? row.status };
    const event = await keepContactDetail(trx, tenantId, row, next, input.metadata);
    if (event) events.push(event);
  }
  for (const [i, input] of wanted.entries()) if (!kept[i]) events.push(...(await insertContactDetail(trx, tenantId, customer, input, param(i))));
  return events;
}

/** Locks the tenant's customer `customerId` (404 when it is not theirs or deleted). */
export function lockCustomer(trx: Knex.Transaction, tenantId: string, customerId: string): Promise<CustomerRef> {
  return findOwned<CustomerRef>(trx, customersResource, tenantId, customerId, { forUpdate: true });
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
    const events = await changeContactDetail(trx, tenantId, customer, id, input);
    await recordDetailEvents(trx, tenantId, events);
    return events[events.length - 1]!.object;
  });
}

/**
 * `DELETE …/contact_details/{id}`: `status: deleted` (and no longer primary); records
 * `customer_contact_detail.deleted`.
 * @returns the detail as it now is
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` when already deleted
 */
export function deleteContactDetail(db: Knex, tenantId: string, customerId: string, id: string): Promise<ContactDetail> {
  return db.transaction(async (trx) => {
    const customer = await lockCustomer(trx, tenantId, customerId);
    const event = await removeContactDetail(trx, tenantId, customer, id);
    await recordDetailEvents(trx, tenantId, [event]);
    return event.object;
  });
}
