/**
 * A payment's terms (docs/api.md sections 8 and 15): what the debt still has room for, whether it
 * collects, and which changes a pending payment's terms may take. Each check runs under the debt's
 * lock its caller (store.ts) holds; amounts in minor units. A refusal throws before anything is written.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantRows } from '../kernel/scoped.js';
import type { DebtRow } from '../debts/schemas.js';
import { DEBT_MACHINE } from '../debts/states.js';
import { paymentsResource } from './resource.js';
import { PENDING_FIELDS, type PaymentRow, type PaymentUpdate } from './schemas.js';

/** Sum of the tenant's pending payments of debt `debtId` other than `exceptId`, minor units. */
async function pendingTotal(trx: Knex.Transaction, tenantId: string, debtId: string, exceptId?: string): Promise<number> {
  const q = tenantRows(trx, paymentsResource, tenantId).where({ 'payments.debt_id': debtId, 'payments.status': 'pending' });
  if (exceptId) q.whereNot('id', exceptId);
  const row = await q.sum({ n: 'amount' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Checks that `amount` fits what the locked debt still owes, less pending payments.
 * @throws ApiError 422 `business_rule_violation` (param `amount`)
 */
export async function assertFits(trx: Knex.Transaction, tenantId: string, debt: DebtRow, amount: number, exceptId?: string): Promise<void> {
  const room = debt.amount_remaining - (await pendingTotal(trx, tenantId, debt.id, exceptId));
  if (amount > room) {
    throw new ApiError('business_rule_violation', `amount exceeds the remaining balance of ${debt.amount_remaining} (less pending payments: ${room}).`, {
      param: 'amount',
    });
  }
}

/**
 * Refuses money on a debt that does not collect (the statuses the `pay` move starts from).
 * @throws ApiError 409 `invalid_state_transition`
 */
export function requireCollecting(debt: DebtRow): void {
  const verdict = DEBT_MACHINE.transition(debt.status, 'pay');
  if (!verdict.ok) throw new ApiError('invalid_state_transition', verdict.message);
}

/**
 * The changes of `input`'s pending-only fields (docs/api.md section 15) to the locked `payment` of
 * the locked `debt`, checked as a new payment's are.
 * @returns the columns to write (empty when none is given)
 * @throws ApiError 409 `invalid_state_transition` (the payment is not pending), 422
 *   `business_rule_violation` (param `currency`, or `amount` past the remaining balance)
 */
export async function pendingChanges(
  trx: Knex.Transaction,
  tenantId: string,
  debt: DebtRow,
  payment: PaymentRow,
  input: PaymentUpdate,
): Promise<Record<string, unknown>> {
  const given = PENDING_FIELDS.filter((f) => input[f] !== undefined);
  if (!given.length) return {};
  if (payment.status !== 'pending') {
    throw new ApiError('invalid_state_transition', `A ${payment.status} payment's ${given.join(', ')} can no longer change: only a pending payment's can.`, {
      param: given[0],
    });
  }
  if (payment.provider_managed) {
    const message = `Payment '${payment.id}' was taken through the payment provider: its ${given.join(', ')} come from the provider and cannot change.`;
    throw new ApiError('business_rule_violation', message, { param: given[0] });
  }
  if (input.currency !== undefined && input.currency !== debt.currency) {
    throw new ApiError('business_rule_violation', `currency must be the debt's currency (${debt.currency}).`, { param: 'currency' });
  }
  if (input.amount !== undefined && input.amount !== payment.amount) await assertFits(trx, tenantId, debt, input.amount, payment.id);
  return Object.fromEntries(given.map((f) => [f, input[f]]));
}
