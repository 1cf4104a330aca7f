/**
 * Balance items made when the money moves (docs/api.md section 14), as the public payment API's
 * balance transactions are made with their charge or refund: a payment's success writes its
 * `payment` item with its platform fee (fees.ts, the organisation's settings in force then), a
 * refund its negative `refund` item, in the caller's transaction, the one of the payment change
 * and its event. The item names no payout: the next run of its payout account takes every item
 * after the account's last payout (run.ts). The writer shares the account's row lock before the
 * item's `seq` is drawn (accounts.ts `shareAccount`, taken by the caller before its first event),
 * which is what lets a run take a range.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { payoutSettings } from '../organisations/payout-settings.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { platformFee } from './fees.js';
import { balanceItemsResource as items } from './resource.js';

/** Money that moved on a payment: its success (`payment`) or a refund (`refund`). */
export interface MoneyMovement {
  type: 'payment' | 'refund';
  tenantId: string;
  /** The organisation of the payment's debt, and the payment's currency: its payout account. */
  organisationId: string;
  currency: string;
  paymentId: string;
  debtId: string;
  /** Minor units, > 0: the payment's amount, or the amount refunded now. */
  amount: number;
}

/**
 * Writes the balance item of `move` in `trx` (which holds the debt's and payment's locks, and the
 * account's writer lock: `shareAccount`, taken before the transaction wrote any event): a
 * `payment` item of `amount` with its fee and `net = amount - fee`, or a `refund` item of
 * `-amount` without fee (refunds do not return fees).
 * @param configurations the organisation's, as `shareAccount` returned them (its fee terms in force)
 */
export async function recordBalanceItem(trx: Knex.Transaction, move: MoneyMovement, configurations: OrganisationRow['configurations']): Promise<void> {
  const fee = move.type === 'payment' ? platformFee(move.amount, payoutSettings(configurations)) : 0;
  const amount = move.type === 'payment' ? move.amount : -move.amount;
  await trx(items.table).insert({
    id: newId(items.idPrefix),
    tenant_id: move.tenantId,
    organisation_id: move.organisationId,
    currency: move.currency,
    type: move.type,
    amount,
    fee,
    net: amount - fee,
    payment_id: move.paymentId,
    debt_id: move.debtId,
  });
}
