/**
 * A customer's contact preferences (docs/api.md section 10, "Contact preferences"): the one writer of `customers.contact_preferences`. The API's `POST`/`PATCH
 * /customers/{id}`, the portal and an inbound SMS `STOP` all land here; a change records
 * `customer.updated` in the caller's transaction. The collection engine reads them with the
 * customer (`acceptedChannels`, `preferredHours`) and obeys them (section 13).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { DELIVERY_METHODS, type DeliveryMethod } from '../communication-templates/schemas.js';
import { tenantRows } from '../kernel/scoped.js';
import { customersResource } from './resource.js';
import type { ContactPreferences, ContactPreferencesShown, CustomerRow, PreferenceActor } from './schemas.js';

/**
 * The preferences as stored, stamped with `actor` and `now`; null stays null (none expressed).
 * @throws ApiError 400 `validation_failed` naming `contact_preferences.hours.until` when the
 *   hours do not end after they start
 */
export function stampPreferences(prefs: ContactPreferences | null, actor: PreferenceActor, now = new Date()): ContactPreferencesShown | null {
  if (!prefs) return null;
  if (prefs.hours && prefs.hours.until <= prefs.hours.from) {
    const message = `contact_preferences.hours.until (${prefs.hours.until}) must be after contact_preferences.hours.from (${prefs.hours.from})`;
    throw new ApiError('validation_failed', message, {
      param: 'contact_preferences.hours.until',
      errors: [{ param: 'contact_preferences.hours.until', message }],
    });
  }
  return { channels: prefs.channels, hours: prefs.hours ?? null, language: prefs.language ?? null, changed_by: actor, changed_at: now.toISOString() };
}

/** The column's value: the JSON text, or SQL null (never a JSON `null`, which the column's check refuses). */
export function preferencesColumn(prefs: ContactPreferencesShown | null): string | null {
  return prefs ? JSON.stringify(prefs) : null;
}

/** The channels the customer accepts (every channel when they expressed no preference). */
export function acceptedChannels(customer: Pick<CustomerRow, 'contact_preferences'>): readonly DeliveryMethod[] {
  return customer.contact_preferences?.channels ?? DELIVERY_METHODS;
}

/** The customer's preferred hours as minutes of the local day `[from, until)`, or undefined for the whole window. */
export function preferredHours(customer: Pick<CustomerRow, 'contact_preferences'>): { from: number; until: number } | undefined {
  const hours = customer.contact_preferences?.hours;
  if (!hours) return undefined;
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  return { from: minutes(hours.from), until: minutes(hours.until) };
}

/**
 * Sets the contact preferences of the tenant's customer `customerId` (locked by this update) as
 * `actor` says, in `trx`, and records `customer.updated` through `recordUpdated` (the customer
 * store's event, with the details embedded). Nothing is written when they are unchanged.
 * @param change the new preferences, or a function of the current ones (an SMS `STOP` removes `sms`)
 * @returns true when they changed
 * @throws ApiError 404 `resource_missing`; 400 `validation_failed` (see `stampPreferences`)
 */
export async function writePreferences(
  trx: Knex.Transaction,
  tenantId: string,
  customerId: string,
  change: ContactPreferences | null | ((current: ContactPreferencesShown | null) => ContactPreferences | null),
  actor: PreferenceActor,
  recordUpdated: (trx: Knex.Transaction, tenantId: string, id: string) => Promise<unknown>,
): Promise<boolean> {
  const row = (await tenantRows(trx, customersResource, tenantId).where('customers.id', customerId).whereNull('customers.deleted_at').forUpdate().first()) as
    CustomerRow | undefined;
  if (!row) throw new ApiError('resource_missing', `No such customer: '${customerId}'`, { param: 'id' });
  const current = row.contact_preferences ?? null;
  const next = typeof change === 'function' ? change(current) : change;
  const same = (a: ContactPreferences | null, b: ContactPreferences | null) =>
    JSON.stringify(a && [a.channels, a.hours ?? null, a.language ?? null]) === JSON.stringify(b && [b.channels, b.hours ?? null, b.language ?? null]);
  if (same(current, next)) return false;
  await tenantRows(trx, customersResource, tenantId)
    .where('customers.id', customerId)
    .update({ contact_preferences: preferencesColumn(stampPreferences(next, actor)), updated_at: trx.fn.now() });
  await recordUpdated(trx, tenantId, customerId);
  return true;
}
