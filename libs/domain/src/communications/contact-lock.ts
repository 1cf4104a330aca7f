/**
 * Communications (docs/api.md section 12): the contact lock of a customer and the count of the
 * customer's contacts in the last 7 days taken under it.
 */
import type { Knex } from '@dms/db';
import { tenantRows } from '../kernel/scoped.js';
import { communicationsResource as communications } from './resource.js';

/**
 * Takes the contact lock of each customer of `debts`: a transaction-scoped advisory lock per
 * tenant and customer, held to the commit and taken in one order (so two transactions never wait
 * on each other in a circle). A transaction that counts a customer's contacts of the last 7 days
 * (docs/api.md section 12) under it sees every hand-over committed before, so two workers
 * contacting one customer through two debts take turns instead of both staying under the limit.
 * Take it before anything else the transaction locks but the debts it claimed.
 */
export async function lockContactsOf(trx: Knex.Transaction, debts: ReadonlyArray<{ tenant_id: string; customer_id: string }>): Promise<void> {
  const keys = [...new Set(debts.map((d) => `contact:${d.tenant_id}:${d.customer_id}`))];
  if (!keys.length) return;
  await trx.raw('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT DISTINCT hashtextextended(x, 0) AS k FROM unnest(?::text[]) AS x ORDER BY 1) AS s', [
    keys,
  ]);
}

/**
 * How many outbound communications were handed to a provider for `customerId` in the 7 days up
 * to `now`, the engine's clock (docs/api.md section 12), and the oldest of those hand-overs,
 * counted under the customer's contact lock (`lockContactsOf`).
 */
export async function contactsInSevenDays(
  trx: Knex.Transaction,
  tenantId: string,
  customerId: string,
  now: Date,
): Promise<{ count: number; oldest: Date | null }> {
  await lockContactsOf(trx, [{ tenant_id: tenantId, customer_id: customerId }]);
  const row: { count: number; oldest: Date | null } = await tenantRows(trx, communications, tenantId)
    .where({ 'communications.customer_id': customerId, 'communications.direction': 'outbound' })
    .whereNotNull('communications.handed_at')
    .whereRaw(`communications.handed_at > ?::timestamptz - interval '7 days'`, [now])
    .first(trx.raw('count(*)::int AS count'), trx.raw('min(communications.handed_at) AS oldest'));
  return row;
}
