/**
 * Which contact detail a communication goes to (docs/api.md sections 12 and 13): the customer's
 * primary usable detail of the channel's type (never one `undeliverable` or `deleted`), else the
 * oldest usable one; and, for a step whose own channel cannot reach the customer, which of the
 * strategy's other channels it falls back to (`stepChannel`).
 */
import type { Knex } from '@dms/db';
import { contactDetailsResource } from '../contact-details/resource.js';
import type { ContactDetailRow } from '../contact-details/schemas.js';
import type { DeliveryMethod } from '../communication-templates/schemas.js';
import { tenantRows } from '../kernel/scoped.js';

/** Contact detail types each channel can use, preferred first. */
export const METHOD_DETAIL_TYPES: Readonly<Record<DeliveryMethod, readonly ContactDetailRow['type'][]>> = {
  email: ['email'],
  sms: ['mobile_number'],
  letter: ['address'],
};

/** Statuses of a detail the engine may send to. */
export const USABLE_DETAIL_STATUSES: readonly ContactDetailRow['status'][] = ['unverified', 'verified'];

/** The customer's usable details, primary first, then oldest first. */
export async function usableDetails(db: Knex | Knex.Transaction, tenantId: string, customerId: string): Promise<ContactDetailRow[]> {
  return (await tenantRows(db, contactDetailsResource, tenantId)
    .where('customer_contact_details.customer_id', customerId)
    .whereIn('customer_contact_details.status', USABLE_DETAIL_STATUSES)
    .orderBy([
      { column: 'customer_contact_details.primary', order: 'desc' },
      { column: 'customer_contact_details.seq', order: 'asc' },
    ])) as ContactDetailRow[];
}

/** The detail a communication by `method` goes to, from `details` as `usableDetails` orders them. */
export function pickDetail(details: readonly ContactDetailRow[], method: DeliveryMethod): ContactDetailRow | undefined {
  for (const type of METHOD_DETAIL_TYPES[method]) {
    const found = details.find((d) => d.type === type);
    if (found) return found;
  }
  return undefined;
}

/**
 * The channels a strategy step tries, in order: its own, then the strategy's other channels in the
 * order its steps first use them (a step never falls back to a channel the tenant's strategy does
 * not use).
 */
export function channelOrder(own: DeliveryMethod, strategyMethods: readonly DeliveryMethod[]): DeliveryMethod[] {
  return [...new Set([own, ...strategyMethods])];
}

/**
 * Where a step with channel `own` goes (docs/api.md section 13, "Fall-back to the next usable
 * channel"): the first channel of `channelOrder` the customer has a usable detail for, with that
 * detail; undefined when none of the strategy's channels can reach them.
 */
export function stepChannel(
  details: readonly ContactDetailRow[],
  own: DeliveryMethod,
  strategyMethods: readonly DeliveryMethod[],
): { method: DeliveryMethod; detail: ContactDetailRow } | undefined {
  for (const method of channelOrder(own, strategyMethods)) {
    const detail = pickDetail(details, method);
    if (detail) return { method, detail };
  }
  return undefined;
}
