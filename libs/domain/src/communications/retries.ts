/**
 * Hand-overs that wait (docs/api.md section 13): a communication its provider refused for now
 * (SMTP 4xx, no connection, SMS throttling) is handed over again later, as mail transfer agents
 * retry (RFC 5321 section 4.5.4.1): after a backoff that doubles from attempt to attempt up to a
 * ceiling, with jitter so that many messages refused at once do not come back at once, only inside
 * the customer's contact hours, for at most the retry window counted from the first attempt; past
 * it the message is refused for good. `prepareHandOvers` takes the due ones of debts a worker
 * claimed and leases them to it for their hand-over after its commit.
 */
import type { Knex } from '@dms/db';
import { restoreLinkToken } from './portal-link.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import type { ContactDetailRow } from '../contact-details/schemas.js';
import { customersResource } from '../customers/resource.js';
import type { CustomerRow } from '../customers/schemas.js';
import type { DebtRow } from '../debts/schemas.js';
import { forbidsContact } from '../debts/states.js';
import { tenantRows } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { USABLE_DETAIL_STATUSES } from './details.js';
import type { SendTarget } from './compose.js';
import { deferCommunication, recordOutcomes } from './outcomes.js';
import { communicationsResource } from './resource.js';
import { nextAllowedByLimit, nextContactTime, timeZoneOf } from './rules.js';
import type { CommunicationRow } from './schemas.js';
import { contactsInSevenDays, lockContactsOf } from './contact-lock.js';
import { HAND_OVER_LEASE_SECONDS } from './store.js';
import { DEFAULT_CONTACTS_PER_7_DAYS, strategyOf } from '../organisations/strategy.js';

/** How temporary refusals are retried. */
export interface RetrySettings {
  /** Backoff before the second attempt, in seconds; doubled for each later one. */
  baseSeconds: number;
  /** Longest backoff, in seconds. */
  maxSeconds: number;
  /** How long after the first attempt a message is still retried, in seconds (default 24 h). */
  windowSeconds: number;
}

/**
 * When a message refused for now after `attempts` hand-overs (the first at `firstAttemptAt`) is
 * tried again, at the engine's clock `now`: `min(base × 2^(attempts-1), max)` scaled by a jitter
 * in [0.5, 1.5) (`random` in [0, 1)), moved to the next opening of the contact hours in
 * `timeZone`. Pure.
 * @returns the time, or null when it falls past the retry window (the message is refused for good)
 */
export function nextRetryAt(attempts: number, firstAttemptAt: Date, now: Date, timeZone: string, settings: RetrySettings, random: number): Date | null {
  const backoff = Math.min(settings.baseSeconds * 2 ** Math.max(0, attempts - 1), settings.maxSeconds) * (0.5 + random);
  const at = nextContactTime(new Date(now.getTime() + backoff * 1000), timeZone);
  return at.getTime() > firstAttemptAt.getTime() + settings.windowSeconds * 1000 ? null : at;
}

/** One communication leased for its hand-over after the commit. */
export interface PreparedHandOver {
  communication: CommunicationRow;
  to: SendTarget;
}

/** Loads `ids` of `resource` for one tenant, by id. */
async function rowsById<T extends { id: string }>(trx: Knex.Transaction, resource: Parameters<typeof tenantRows>[1], tenantId: string, ids: string[]) {
  const rows = (await tenantRows(trx, resource, tenantId).whereIn(`${resource.table}.id`, [...new Set(ids)])) as T[];
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Takes the communications `communicationIds` (`queued`, not being handed over) of the locked
 * `debts`, each due by its debt's engine clock `now`: one outside the customer's contact hours, or
 * of a debt whose status forbids contact, or of a customer at the 7-day limit, waits (until the
 * hours open, an hour, or the limit allows); one whose contact detail is no longer usable is
 * refused for good (the debt's next step is due); the others count toward the limit from `now`
 * and are leased to the caller for `leaseSeconds` and returned for their hand-over once the
 * caller's transaction commits, their portal link's token put back (`linkKeys`, portal-link.ts).
 */
export async function prepareHandOvers(
  trx: Knex.Transaction,
  items: ReadonlyArray<{ debt: DebtRow; communicationId: string; now: Date }>,
  linkKeys: Buffer[],
  leaseSeconds = HAND_OVER_LEASE_SECONDS,
): Promise<PreparedHandOver[]> {
  const prepared: PreparedHandOver[] = [];
  // The contact locks before the communications' row locks (the order store.ts's `lockContactsOf` asks for).
  await lockContactsOf(
    trx,
    items.map((i) => i.debt),
  );
  for (const { debt, communicationId, now } of items) {
    const row = (await tenantRows(trx, communicationsResource, debt.tenant_id)
      .where({ 'communications.id': communicationId, 'communications.status': 'queued' })
      .whereNull('communications.sending_at')
      .forUpdate()
      .first()) as CommunicationRow | undefined;
    if (!row) continue;
    const customer = (await rowsById<CustomerRow>(trx, customersResource, debt.tenant_id, [debt.customer_id])).get(debt.customer_id);
    const timeZone = timeZoneOf(customer?.preferred_locale ?? null);
    if (forbidsContact(debt.status)) {
      await deferCommunication(trx, row, new Date(now.getTime() + 3_600_000), `status '${debt.status}' forbids contact`);
      continue;
    }
    const windowAt = nextContactTime(now, timeZone);
    if (windowAt > now) {
      await deferCommunication(trx, row, windowAt, `outside 08:00-21:00 in ${timeZone}`);
      continue;
    }
    const detail = row.contact_detail_id
      ? (await rowsById<ContactDetailRow>(trx, contactDetailsResource, debt.tenant_id, [row.contact_detail_id])).get(row.contact_detail_id)
      : undefined;
    if (!customer || !detail || !USABLE_DETAIL_STATUSES.includes(detail.status)) {
      await recordOutcomes(trx, [{ sent: row, outcome: { kind: 'refused', reason: 'its contact detail is no longer usable', undeliverable: false } }]);
      continue;
    }
    const organisation = (await rowsById<OrganisationRow>(trx, organisationsResource, debt.tenant_id, [debt.organisation_id])).get(debt.organisation_id)!;
    // It counts toward the 7-day limit again from now: the limit is checked again under the customer's contact lock.
    const limit = strategyOf(organisation.configurations).contacts_per_7_days ?? DEFAULT_CONTACTS_PER_7_DAYS;
    const recent = await contactsInSevenDays(trx, debt.tenant_id, debt.customer_id, now);
    const limitAt = nextAllowedByLimit(now, recent.count, recent.oldest, limit);
    if (limitAt > now) {
      await deferCommunication(trx, row, limitAt, `${recent.count} contacts in 7 days (limit ${limit})`);
      continue;
    }
    await tenantRows(trx, communicationsResource, debt.tenant_id)
      .where('communications.id', row.id)
      .update({ handed_at: now, next_attempt_at: new Date(now.getTime() + leaseSeconds * 1000), updated_at: trx.fn.now() });
    prepared.push({
      communication: row,
      to: {
        value: detail.value,
        address: detail.address,
        name: customer.full_name ?? ([customer.first_name, customer.last_name].filter(Boolean).join(' ') || null),
        senderName: organisation.customer_facing_name ?? organisation.name,
        subject: row.subject === null ? null : await restoreLinkToken(trx, linkKeys, debt.tenant_id, row.id, row.subject),
        body: await restoreLinkToken(trx, linkKeys, debt.tenant_id, row.id, row.body ?? ''),
        timeZone,
      },
    });
  }
  return prepared;
}
