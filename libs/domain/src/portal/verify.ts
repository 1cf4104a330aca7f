/**
 * Verification of a portal link (docs/api.md section 18): the customer
 * confirms one fact the tenant supplied (`configurations.portal.verify_with`). Answers are
 * normalised, then compared as SHA-256 digests in constant time; five wrong answers lock the link
 * for an hour (`customer.locked_out`), a right one records `customer.verified`. Both events are the
 * customer's, `whodunnit` `customer:<cus_id>`, `source` `portal`, in the transaction of the change.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from '@dms/db';
import { recordEvent } from '../kernel/outbox.js';
import { customersResource } from '../customers/resource.js';
import { birthDateOf } from '../customers/birth-dates.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { debtsResource } from '../debts/resource.js';
import { tenantRows } from '../kernel/scoped.js';
import type { PortalLinkRow } from './links.js';
import type { VerifyWith } from './settings.js';

/** Wrong answers before a link locks. */
export const MAX_FAILED_ATTEMPTS = 5;
/** How long a locked link stays locked, seconds. */
export const LOCK_SECONDS = 3600;

/**
 * The ONE reader of a customer's verification fact (kept alone so the storage of, e.g.,
 * `date_of_birth` may change without touching the portal): the normalised facts on file of `kind`,
 * empty when none. Dates are `YYYY-MM-DD`; postcodes upper case without spaces; last4 four digits.
 */
export async function verificationFact(trx: Knex | Knex.Transaction, tenantId: string, customerId: string, kind: VerifyWith): Promise<string[]> {
  if (kind === 'date_of_birth') {
    // Stored sealed (birth-dates.ts): opened here, then compared as digests like every fact.
    const row = await tenantRows(trx, customersResource, tenantId)
      .where('customers.id', customerId)
      .first('customers.date_of_birth_encrypted', trx.raw(`to_char(customers.date_of_birth, 'YYYY-MM-DD') AS date_of_birth`));
    const dob = row ? birthDateOf(row as { date_of_birth: string | null; date_of_birth_encrypted: string | null }) : null;
    return dob ? [dob] : [];
  }
  if (kind === 'postcode') {
    const rows = await tenantRows(trx, contactDetailsResource, tenantId)
      .where({ 'customer_contact_details.customer_id': customerId, 'customer_contact_details.type': 'address' })
      .whereNot('customer_contact_details.status', 'deleted')
      .select(trx.raw(`address->>'postal_code' AS pc`));
    return rows.map((r: { pc: string | null }) => normaliseAnswer('postcode', r.pc ?? '')).filter((v: string) => v !== '');
  }
  const rows = await tenantRows(trx, debtsResource, tenantId)
    .where('debts.customer_id', customerId)
    .whereNot('debts.status', 'deleted')
    .select('debts.account_number');
  return rows.map((r: { account_number: string | null }) => (r.account_number ?? '').replace(/\s/g, '').slice(-4)).filter((v: string) => v.length === 4);
}

/** An answer in the form facts are compared in (see `verificationFact`); '' when unusable. */
export function normaliseAnswer(kind: VerifyWith, answer: string): string {
  const a = answer.trim();
  if (kind === 'postcode') return a.replace(/\s+/g, '').toUpperCase();
  if (kind === 'account_number_last4') return /^\d{4}$/.test(a) ? a : a.replace(/\s/g, '');
  return a;
}

/** Whether `answer` equals one of `facts`, in time independent of where they differ. */
export function answerMatches(facts: readonly string[], answer: string): boolean {
  const given = createHash('sha256').update(answer).digest();
  let ok = false;
  for (const fact of facts) ok = timingSafeEqual(given, createHash('sha256').update(fact).digest()) || ok;
  return ok && answer !== '';
}

/** The outcome of an answer. */
export type VerifyOutcome = 'verified' | 'wrong' | 'locked' | 'no_fact';

/**
 * Checks `answer` for `link` in `trx` (locks the link's row first) and records the outcome.
 * @returns `verified` (attempts reset, `customer.verified`), `wrong`, `locked` (this answer was the
 *   fifth wrong one, or the link was locked: `customer.locked_out` when it locks), or `no_fact`
 */
export async function verifyAnswer(trx: Knex.Transaction, link: PortalLinkRow, kind: VerifyWith, answer: string): Promise<VerifyOutcome> {
  const row = (await trx('portal_links').where({ id: link.id }).forUpdate().first()) as PortalLinkRow;
  if (row.locked_until && row.locked_until > new Date()) return 'locked';
  const facts = await verificationFact(trx, row.tenant_id, row.customer_id, kind);
  if (facts.length === 0) return 'no_fact';
  const object = {
    id: row.customer_id,
    object: 'customer_verification',
    customer: row.customer_id,
    portal_link: row.id,
    whodunnit: `customer:${row.customer_id}`,
    source: 'portal',
  };
  if (answerMatches(facts, normaliseAnswer(kind, answer))) {
    await trx('portal_links').where({ id: row.id }).update({ failed_attempts: 0, locked_until: null });
    await recordEvent(trx, customersResource, row.tenant_id, 'customer.verified', object);
    return 'verified';
  }
  const failed = row.failed_attempts + 1;
  if (failed >= MAX_FAILED_ATTEMPTS) {
    await trx('portal_links')
      .where({ id: row.id })
      .update({ failed_attempts: 0, locked_until: trx.raw(`now() + make_interval(secs => ?)`, [LOCK_SECONDS]) });
    await recordEvent(trx, customersResource, row.tenant_id, 'customer.locked_out', object);
    return 'locked';
  }
  await trx('portal_links').where({ id: row.id }).update({ failed_attempts: failed });
  return 'wrong';
}
