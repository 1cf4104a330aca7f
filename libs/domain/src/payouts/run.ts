/**
 * A payout run for one organisation and currency (docs/api.md section 14), set-based and inside
 * the caller's transaction, which holds the account's row lock `FOR UPDATE` (so runs of one
 * account are serial, and no writer of its items is between drawing a `seq` and committing:
 * accounts.ts `shareAccount`):
 * 1. one aggregate over the account's items after its last payout (`seq > items_through`, made
 *    when the money moved: ledger.ts) gives the gross, refunds, fees, count and last `seq`; no
 *    item is written or changed, whatever their number;
 * 2. what the account carried comes in as an `adjustment` item; a negative total is brought to 0
 *    by an `adjustment` carried forward (the remainder, kept on the account for the next run);
 * 3. the payout (owning the range of those items, adjustments included), the account (now
 *    through the range's end) and `payout.created` are written.
 * Ranges of one account follow one another, so each item is in exactly one payout. An item
 * committed after the aggregate has a larger `seq` (its writer waited for this run's lock) and is
 * in the next run.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import { saveAccount } from './accounts.js';
import { balanceItemsResource as items, payoutsResource } from './resource.js';
import type { Payout, PayoutAccountRow } from './schemas.js';
import { loadPayout, toPayout } from './store.js';

interface Sums {
  gross: number;
  refunds: number;
  fees: number;
  count: number;
  /** `seq` of the last item summed, or the account's `items_through` when none. */
  last: number;
}

/** Step 1: the sums of the account's items not yet in a payout: one aggregate (index `balance_items_account`, or a scan when they are most of the table). */
async function sumNewItems(trx: Knex.Transaction, account: PayoutAccountRow): Promise<Sums> {
  const through = Number(account.items_through);
  const { rows } = await trx.raw(
    `SELECT coalesce(sum(amount) FILTER (WHERE type = 'payment'), 0) AS gross,
            coalesce(-sum(amount) FILTER (WHERE type = 'refund'), 0) AS refunds,
            coalesce(sum(fee), 0) AS fees, count(*) AS count, coalesce(max(seq), ?) AS last
     FROM balance_items WHERE organisation_id = ? AND currency = ? AND seq > ?`,
    [through, account.organisation_id, account.currency, through],
  );
  const r = rows[0] as Record<keyof Sums, string | number>;
  return { gross: Number(r.gross), refunds: Number(r.refunds), fees: Number(r.fees), count: Number(r.count), last: Number(r.last) };
}

/** Step 2: an adjustment item of the account (inside the run's range: the run holds the account). @returns its `seq` */
async function insertAdjustment(trx: Knex.Transaction, account: PayoutAccountRow, amount: number, description: string): Promise<number> {
  const [row] = await trx(items.table)
    .insert({
      id: newId(items.idPrefix),
      tenant_id: account.tenant_id,
      organisation_id: account.organisation_id,
      currency: account.currency,
      type: 'adjustment',
      amount,
      fee: 0,
      net: amount,
      description,
    })
    .returning<{ seq: string | number }[]>('seq');
  return Number(row!.seq);
}

/**
 * Runs the payout of `account` (locked by the caller) at `now` (the tenant's moment of the run),
 * whatever its schedule says.
 * @returns the payout made, or null when there was nothing to pay out (the account's next run is set either way)
 */
export async function runPayout(trx: Knex.Transaction, account: PayoutAccountRow, now: Date): Promise<Payout | null> {
  const sums = await sumNewItems(trx, account);
  const carriedIn = Number(account.carried);
  if (sums.count === 0 && carriedIn <= 0) {
    await saveAccount(trx, account, carriedIn, { at: now, itemsThrough: sums.last });
    return null;
  }
  const payoutId = newId(payoutsResource.idPrefix);
  const total = sums.gross - sums.refunds - sums.fees + carriedIn;
  let count = sums.count;
  let last = sums.last;
  if (carriedIn !== 0) {
    last = await insertAdjustment(trx, account, carriedIn, carriedIn > 0 ? 'Returned from a failed payout' : 'Remainder carried from an earlier payout');
    count += 1;
  }
  const carriedOut = Math.min(0, total);
  if (carriedOut < 0) {
    last = await insertAdjustment(trx, account, -carriedOut, 'Remainder carried forward to the next payout');
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
    first_item_seq: Number(account.items_through) + 1,
    last_item_seq: last,
    period_start: account.last_run_at ?? account.created_at,
    period_end: now,
    payout_date: now.toISOString().slice(0, 10),
  });
  await saveAccount(trx, account, carriedOut, { at: now, itemsThrough: last });
  const payout = toPayout(await loadPayout(trx, account.tenant_id, payoutId));
  await recordEvent(trx, payoutsResource, account.tenant_id, 'payout.created', payout);
  return payout;
}
