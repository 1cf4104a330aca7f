/**
 * What a payment's money does to its debt (docs/api.md sections 8 and 9), inside the caller's
 * transaction with the debt locked: succeeded money raises `amount_paid`, pays the active plan's
 * oldest instalments and, when it clears the balance, moves the debt to `paid`; a refund lowers
 * `amount_paid` and reopens a `paid` debt (`resumed`). Every change records its event; the
 * database CHECKs (`amount_remaining >= 0`, `amount_paid >= 0`) back the checks made here.
 */
import type { Knex } from '@dms/db';
import { recordEvent } from '../../db/outbox.js';
import { tenantRows } from '../../db/scoped.js';
import { moveLockedDebt, type StatusNote } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import { toDebt } from '../debts/store.js';
import { payIntoPlan } from '../payment-plans/active.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';

/** Writes `amount_paid` without a status change, with `debt.updated`. */
async function writePaid(trx: Knex.Transaction, tenantId: string, debt: DebtRow, amountPaid: number): Promise<void> {
  const [row] = await tenantRows(trx, 'debts', tenantId)
    .where('debts.id', debt.id)
    .update({ amount_paid: amountPaid, updated_at: trx.fn.now() })
    .returning('*');
  await recordEvent(trx, tenantId, 'debt.updated', toDebt(row as DebtRow));
}

/**
 * Counts `amount` of succeeded money on the locked debt (and its locked active plan, if any).
 * A plan completed while the debt still owes (line items added since) returns the debt to `resumed`.
 */
export async function countSucceeded(
  trx: Knex.Transaction,
  tenantId: string,
  debt: DebtRow,
  plan: PaymentPlanRow | undefined,
  amount: number,
  note: StatusNote,
): Promise<void> {
  const completed = plan ? await payIntoPlan(trx, tenantId, plan, amount) : false;
  const amountPaid = debt.amount_paid + amount;
  if (amountPaid === debt.amount_total) {
    await moveLockedDebt(trx, tenantId, debt, 'pay', note, { amount_paid: amountPaid });
  } else if (completed && debt.status === 'paying') {
    await moveLockedDebt(trx, tenantId, debt, 'cancel-plan', { ...note, context: `payment_plan.completed: ${plan!.id}` }, { amount_paid: amountPaid });
  } else {
    await writePaid(trx, tenantId, debt, amountPaid);
  }
}

/** Takes `amount` of refunded money off the locked debt; a `paid` debt is reopened (`resumed`). */
export async function countRefund(trx: Knex.Transaction, tenantId: string, debt: DebtRow, amount: number, note: StatusNote): Promise<void> {
  const amountPaid = debt.amount_paid - amount;
  if (debt.status === 'paid') await moveLockedDebt(trx, tenantId, debt, 'refund', note, { amount_paid: amountPaid });
  else await writePaid(trx, tenantId, debt, amountPaid);
}
