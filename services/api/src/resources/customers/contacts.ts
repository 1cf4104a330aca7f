/**
 * A customer's `contact_details` given as a whole (docs/api.md section 10): on customer create each
 * entry becomes a contact detail object; on customer update the given array is the new set of
 * visible details. Entries equal to a visible detail (same type and normalised value) keep that
 * object (and its id), updated in place; visible details not given are deleted (soft); the rest
 * are created. Within one array the last primary entry of a type wins.
 */
import type { Knex } from '@dms/db';
import type { ContactDetailCreate, ContactDetailRow } from '../contact-details/schemas.js';
import { insertContactDetail, liveDetails, softDeleteDetail, toContactDetail, type CustomerRef, type DetailEvent } from '../contact-details/store.js';
import { phoneRegion, storedValue } from '../contact-details/values.js';

const param = (i: number) => `contact_details[${i}]`;

/** The entries with `primary` kept only on the last primary entry of each type. */
function lastPrimaryWins(list: readonly ContactDetailCreate[]): ContactDetailCreate[] {
  const last = new Map<string, number>();
  list.forEach((c, i) => c.primary && last.set(c.type, i));
  return list.map((c, i) => ({ ...c, primary: last.get(c.type) === i }));
}

/** The comparable stored value of a detail (text, or the address as JSON). */
const keyOf = (type: string, stored: { value: string | null; address: unknown }) => `${type}\u0000${stored.value ?? JSON.stringify(stored.address)}`;

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
  const keys = wanted.map((c, i) => keyOf(c.type, storedValue(c.type, c.value, region, `${param(i)}.value`)));
  const unmatched = new Map<string, ContactDetailRow[]>();
  for (const row of await liveDetails(trx, customer.id)) {
    const k = keyOf(row.type, row);
    unmatched.set(k, [...(unmatched.get(k) ?? []), row]);
  }
  const kept = keys.map((k) => unmatched.get(k)?.shift());
  const events: DetailEvent[] = [];
  for (const rows of unmatched.values()) for (const row of rows) events.push(await softDeleteDetail(trx, row.id));
  // Demotions before promotions, so the one-primary-per-type index never sees two at once.
  const order = wanted.map((_, i) => i).sort((a, b) => Number(wanted[a]!.primary) - Number(wanted[b]!.primary));
  for (const i of order) {
    const row = kept[i];
    if (!row) continue;
    const input = wanted[i]!;
    const next = { primary: input.primary!, usage: input.usage ?? row.usage, source: input.source ?? row.source, status: input.status ?? row.status };
    if (next.primary === row.primary && next.usage === row.usage && next.source === row.source && next.status === row.status && input.metadata === undefined)
      continue;
    const metadata = input.metadata === undefined ? {} : { metadata: JSON.stringify(input.metadata) };
    const [updated] = (await trx('customer_contact_details')
      .where({ id: row.id })
      .update({ ...next, ...metadata, updated_at: trx.fn.now() })
      .returning('*')) as ContactDetailRow[];
    events.push({ type: 'customer_contact_detail.updated', object: toContactDetail(updated!) });
  }
  for (const [i, input] of wanted.entries()) if (!kept[i]) events.push(...(await insertContactDetail(trx, tenantId, customer, input, param(i))));
  return events;
}
