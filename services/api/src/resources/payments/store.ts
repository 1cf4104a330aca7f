/**
 * Payments (docs/api.md sections 5 and 6): money received against a debt. A payment is accepted
 * only while the debt collects (`prepared`, `resumed`, `paused`), in the debt's currency, for at
 * most the remaining balance; it raises `amount_paid` in the same transaction, and the payment that
 * clears the balance moves the debt to `paid`. A rejected payment changes nothing.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, type OwnedResource } from '../../db/owned.js';
import { findOwned, tenantRows } from '../../db/scoped.js';
import { iso } from '../../schemas/common.js';
import { requireTransition } from '../debts/lifecycle.js';
import { moveLockedDebt } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import type { Payment, PaymentCreate, PaymentRow } from './schemas.js';

/**
 * Maps a row to the public object.
 * @returns the payment with `amount` in minor units and timestamps in RFC 3339 UTC
 */
export function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    object: 'payment',
    debt: row.debt_id,
    amount: row.amount,
    currency: row.currency,
    transaction_at: iso(row.transaction_at)!,
    transaction_ref: row.transaction_ref,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const payments: OwnedResource<PaymentRow, Payment> = {
  table: 'payments',
  idPrefix: 'pay',
  toObject: toPayment,
  events: { created: 'payment.created' },
};

/**
 * Checks a payment against the locked debt, in the order a client can act on: state, currency, amount.
 * @throws ApiError 409 `invalid_state_transition`, 422 `business_rule_violation` (param `currency` or `amount`)
 */
function assertAcceptable(debt: DebtRow, input: PaymentCreate): void {
  requireTransition(debt.status, 'pay');
  if (input.currency !== debt.currency) {
    throw new ApiError('business_rule_violation', `currency must be the debt's currency (${debt.currency}).`, { param: 'currency' });
  }
  if (input.amount > debt.amount_remaining) {
    throw new ApiError('business_rule_violation', `amount exceeds the remaining balance of ${debt.amount_remaining}.`, { param: 'amount' });
  }
}

/**
 * Records a payment against the tenant's debt `debtId`: locks the debt, checks the payment, inserts
 * it with its `payment.created` event, raises `amount_paid`, and writes `debt.paid` when the
 * balance is cleared, all in one transaction.
 * @param input amount in minor units, in the debt's currency; `transaction_at` defaults to now
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition`, 422 `business_rule_violation`
 */
export async function createPayment(db: Knex, tenantId: string, debtId: string, input: PaymentCreate): Promise<Payment> {
  return db.transaction(async (trx) => {
    const debt = await findOwned<DebtRow>(trx, 'debts', tenantId, debtId, { forUpdate: true });
    assertAcceptable(debt, input);
    // The payment's event is recorded first: it is the cause of the `debt.paid` that may follow.
    const payment = await createOwned(trx, tenantId, payments, {
      debt_id: debt.id,
      amount: input.amount,
      currency: input.currency,
      transaction_at: input.transaction_at ?? trx.fn.now(),
      transaction_ref: input.transaction_ref ?? null,
      metadata: input.metadata,
    });
    const amountPaid = debt.amount_paid + input.amount;
    if (amountPaid === debt.amount_total) {
      await moveLockedDebt(trx, tenantId, debt, 'pay', null, { amount_paid: amountPaid });
    } else {
      await tenantRows(trx, 'debts', tenantId).where('debts.id', debt.id).update({ amount_paid: amountPaid, updated_at: trx.fn.now() });
    }
    return payment;
  });
}
