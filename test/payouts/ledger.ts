/**
 * The payout invariant (docs/api.md section 14), read from the database for one tenant: for every
 * organisation and currency, paid out + pending + carried against what was collected, and that no
 * payment is in two payouts nor any refund counted twice.
 */
import { testDb } from '../support/harness.js';

/** Per `organisation currency`: what the payouts and accounts hold, and what the payments say. */
export interface LedgerSide {
  paidOut: number;
  pending: number;
  carried: number;
  collected: number;
  refunded: number;
  fees: number;
}

/** The sums of every organisation and currency of `tenantId`. */
export async function ledger(tenantId: string): Promise<Map<string, LedgerSide>> {
  const db = testDb();
  const out = new Map<string, LedgerSide>();
  const side = (key: string) => {
    let s = out.get(key);
    if (!s) out.set(key, (s = { paidOut: 0, pending: 0, carried: 0, collected: 0, refunded: 0, fees: 0 }));
    return s;
  };
  const payouts = await db('payouts').where({ tenant_id: tenantId }).select('organisation_id', 'currency', 'status', 'amount');
  for (const p of payouts) {
    if (p.status === 'paid') side(`${p.organisation_id} ${p.currency}`).paidOut += p.amount;
    if (p.status === 'pending' || p.status === 'in_transit') side(`${p.organisation_id} ${p.currency}`).pending += p.amount;
  }
  for (const a of await db('payout_accounts').where({ tenant_id: tenantId })) side(`${a.organisation_id} ${a.currency}`).carried += a.carried;
  const payments = await db('payments')
    .join('debts', 'debts.id', 'payments.debt_id')
    .where('payments.tenant_id', tenantId)
    .whereIn('payments.status', ['succeeded', 'partially_refunded', 'refunded'])
    .select('debts.organisation_id', 'payments.currency', 'payments.amount', 'payments.amount_refunded');
  for (const p of payments) {
    const s = side(`${p.organisation_id} ${p.currency}`);
    s.collected += p.amount;
    s.refunded += p.amount_refunded;
  }
  for (const i of await db('balance_items').where({ tenant_id: tenantId, type: 'payment' })) side(`${i.organisation_id} ${i.currency}`).fees += i.fee;
  return out;
}

/** Payments in more than one item, and payments whose refund items differ from their `amount_refunded`. */
export async function doubleCounted(tenantId: string): Promise<{ twice: unknown[]; refunds: unknown[] }> {
  const db = testDb();
  const twice = await db('balance_items').where({ tenant_id: tenantId, type: 'payment' }).groupBy('payment_id').havingRaw('count(*) > 1').select('payment_id');
  const refunds = await db('payments')
    .where('payments.tenant_id', tenantId)
    .select('payments.id', 'payments.amount_refunded')
    .select(db.raw(`coalesce((SELECT -sum(b.amount) FROM balance_items b WHERE b.type = 'refund' AND b.payment_id = payments.id), 0)::bigint AS itemised`))
    .then((rows) => rows.filter((r) => Number(r.itemised) !== r.amount_refunded));
  return { twice, refunds };
}
