/**
 * A payout run for one organisation and currency (docs/api.md section 14), set-based and inside
 * the caller's transaction, which holds the account's row lock (so runs of one account are serial):
 * 1. one statement turns every succeeded payment not yet in a payout into a `payment` item (with
 *    its platform fee, fees.ts) and every refund not yet in one into a negative `refund` item (the
 *    payment's `amount_refunded` less its earlier refund items, so a refund after its payment was
 *    paid out lands in the next payout), and sums what it inserted;
 * 2. what the account carried comes in as an `adjustment` item; a negative total is brought to 0
 *    by an `adjustment` carried forward (the remainder, kept on the account for the next run);
 * 3. the payout, the account and `payout.created` are written.
 * Items are immutable and each is in exactly one payout (one `payment` item per payment: a unique
 * index). A payment refunded while the run reads it is seen whole or not at all (one statement,
 * one snapshot); what it misses is in the next run.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import type { PayoutSettings } from '../organisations/payout-settings.js';
import { saveAccount } from './accounts.js';
import { feeBindings, feeSql } from './fees.js';
import { balanceItemsResource as items, payoutsResource } from './resource.js';
import type { Payout, PayoutAccountRow } from './schemas.js';
import { loadPayout, toPayout } from './store.js';

const SUCCEEDED = `('succeeded', 'partially_refunded', 'refunded')`;
/**
 * Ids of a run's items, `bi_` + 24 base62 characters like every id: the first 12 random characters
 * of the payout's id, then the item's 12-digit ordinal in the payout (bound: that prefix). Ids of
 * one run ascend, so a million of them append to the primary key's index instead of splitting its
 * pages at random, and they are unique as long as payout ids are.
 */
const ITEM_ID = `'bi_' || ? || lpad(ordinal::text, 12, '0')`;
const itemIdPrefix = (payoutId: string) => payoutId.slice(payoutId.indexOf('_') + 1, payoutId.indexOf('_') + 13);

/** The organisation's payments in the account's currency (aliases `p` and `d`); bindings: tenant, tenant, organisation, currency. */
const ACCOUNT_PAYMENTS = `payments p JOIN debts d ON d.id = p.debt_id
  WHERE p.tenant_id = ? AND d.tenant_id = ? AND d.organisation_id = ? AND p.currency = ?`;

interface Sums {
  gross: number;
  refunds: number;
  fees: number;
  count: number;
}

/** Step 1: inserts the payment and refund items of `payoutId` and returns their sums. */
async function insertPaymentItems(trx: Knex.Transaction, account: PayoutAccountRow, payoutId: string, terms: Required<PayoutSettings>): Promise<Sums> {
  const owner = [account.tenant_id, account.tenant_id, account.organisation_id, account.currency];
  // A batch job: room to sort a million lines in memory, for this transaction only.
  await trx.raw(`SET LOCAL work_mem = '64MB'`);
  const { rows } = await trx.raw(
    `WITH paid AS (
       SELECT p.id, p.seq, p.debt_id, p.amount FROM ${ACCOUNT_PAYMENTS}
         AND p.status IN ${SUCCEEDED}
         AND NOT EXISTS (SELECT 1 FROM balance_items b WHERE b.type = 'payment' AND b.payment_id = p.id)
     ), refunded AS (
       SELECT p.id, p.seq, p.debt_id,
              p.amount_refunded + coalesce((SELECT sum(b.amount) FROM balance_items b WHERE b.type = 'refund' AND b.payment_id = p.id), 0) AS due
       FROM ${ACCOUNT_PAYMENTS} AND p.amount_refunded > 0
     ), lines AS (
       SELECT 'payment' AS type, id, seq, debt_id, amount, ${feeSql('amount')} AS fee FROM paid
       UNION ALL
       SELECT 'refund', id, seq, debt_id, -due, 0 FROM refunded WHERE due > 0
     ), inserted AS (
       INSERT INTO balance_items (id, tenant_id, payout_id, organisation_id, currency, type, amount, fee, net, payment_id, debt_id)
       SELECT ${ITEM_ID}, ?, ?, ?, ?, type, amount, fee, amount - fee, id, debt_id
       FROM (SELECT *, row_number() OVER (ORDER BY seq, type) AS ordinal FROM lines) AS numbered ORDER BY ordinal
       RETURNING type, amount, fee
     )
     SELECT coalesce(sum(amount) FILTER (WHERE type = 'payment'), 0) AS gross,
            coalesce(-sum(amount) FILTER (WHERE type = 'refund'), 0) AS refunds,
            coalesce(sum(fee), 0) AS fees, count(*) AS count
     FROM inserted`,
    [...owner, ...owner, ...feeBindings(terms), itemIdPrefix(payoutId), account.tenant_id, payoutId, account.organisation_id, account.currency],
  );
  const r = rows[0] as Record<keyof Sums, string | number>;
  return { gross: Number(r.gross), refunds: Number(r.refunds), fees: Number(r.fees), count: Number(r.count) };
}

/** Step 2: an adjustment item of `payoutId`. */
async function insertAdjustment(trx: Knex.Transaction, account: PayoutAccountRow, payoutId: string, amount: number, description: string): Promise<void> {
  await trx(items.table).insert({
    id: newId(items.idPrefix),
    tenant_id: account.tenant_id,
    payout_id: payoutId,
    organisation_id: account.organisation_id,
    currency: account.currency,
    type: 'adjustment',
    amount,
    fee: 0,
    net: amount,
    description,
  });
}

/**
 * Runs the payout of `account` (locked by the caller) at `now` (the tenant's moment of the run),
 * whatever its schedule says.
 * @param terms the organisation's payout settings in force
 * @returns the payout made, or null when there was nothing to pay out (the account's next run is set either way)
 */
export async function runPayout(trx: Knex.Transaction, account: PayoutAccountRow, terms: Required<PayoutSettings>, now: Date): Promise<Payout | null> {
  const payoutId = newId(payoutsResource.idPrefix);
  const sums = await insertPaymentItems(trx, account, payoutId, terms);
  const carriedIn = Number(account.carried);
  if (sums.count === 0 && carriedIn <= 0) {
    await saveAccount(trx, account, carriedIn, now);
    return null;
  }
  const total = sums.gross - sums.refunds - sums.fees + carriedIn;
  let count = sums.count;
  if (carriedIn !== 0) {
    await insertAdjustment(trx, account, payoutId, carriedIn, carriedIn > 0 ? 'Returned from a failed payout' : 'Remainder carried from an earlier payout');
    count += 1;
  }
  const carriedOut = Math.min(0, total);
  if (carriedOut < 0) {
    await insertAdjustment(trx, account, payoutId, -carriedOut, 'Remainder carried forward to the next payout');
    count += 1;
  }
  await trx(payoutsResource.table).insert({
    id: payoutId,
    tenant_id: account.tenant_id,
    organisation_id: account.organisation_id,
    currency: account.currency,
    status: 'pending',
    status_whodunnit: 'system',
    status_updated_at: now,
    amount: total - carriedOut,
    gross: sums.gross,
    refunds: sums.refunds,
    fees: sums.fees,
    adjustments: carriedIn - carriedOut,
    item_count: count,
    period_start: account.last_run_at ?? account.created_at,
    period_end: now,
    payout_date: now.toISOString().slice(0, 10),
  });
  await saveAccount(trx, account, carriedOut, now);
  const payout = toPayout(await loadPayout(trx, account.tenant_id, payoutId));
  await recordEvent(trx, payoutsResource, account.tenant_id, 'payout.created', payout);
  return payout;
}
