/**
 * Payments (docs/api.md sections 5 and 8): money received against a debt, with its outcome. A
 * payment is accepted only while the debt collects, in the debt's currency, for at most the
 * remaining balance less the other pending payments. Every write locks the debt first (then the
 * payment, then the plan), so racing payments, outcomes and refunds on one debt run one at a
 * time and none can push `amount_remaining` below 0 or refund more than was paid. A success or a
 * refund also writes its balance item (payouts/ledger.ts, docs/api.md section 14) in the same
 * transaction, taking its payout account's shared lock last. A rejected request changes nothing.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, type OwnedResource } from '../kernel/owned.js';
import { recordEvent } from '../kernel/outbox.js';
import { mergeMetadata } from '../kernel/metadata.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { countMoney, lockDebt, type StatusNote } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import { DEBT_MACHINE } from '../debts/states.js';
import { lockActivePlan } from '../payment-plans/store.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';
import { recordBalanceItem } from '../payouts/ledger.js';
import { paymentsResource } from './resource.js';
import { OUTCOME_MOVES, requirePaymentTransition } from './states.js';
import type { Payment, PaymentCreate, PaymentRefund, PaymentRow, PaymentUpdate } from './schemas.js';

/**
 * Maps a row to the public object.
 * @returns the payment with amounts in minor units and timestamps in RFC 3339 UTC
 */
export function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    object: 'payment',
    debt: row.debt_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    payment_provider: row.payment_provider,
    payment_plan: row.payment_plan_id,
    amount_refunded: row.amount_refunded,
    transaction_at: iso(row.transaction_at)!,
    transaction_ref: row.transaction_ref,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const payments: OwnedResource<PaymentRow, Payment, typeof paymentsResource> = {
  resource: paymentsResource,
  toObject: toPayment,
  events: { created: 'payment.created' },
};

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
async function assertFits(trx: Knex.Transaction, tenantId: string, debt: DebtRow, amount: number, exceptId?: string): Promise<void> {
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
function requireCollecting(debt: DebtRow): void {
  const verdict = DEBT_MACHINE.transition(debt.status, 'pay');
  if (!verdict.ok) throw new ApiError('invalid_state_transition', verdict.message);
}

/**
 * The plan a payment goes to: the one named (which must be the debt's active plan), else the active one.
 * @throws ApiError 422 `business_rule_violation` (param `payment_plan_id`)
 */
async function planFor(trx: Knex.Transaction, tenantId: string, debtId: string, named?: string): Promise<PaymentPlanRow | undefined> {
  const plan = await lockActivePlan(trx, tenantId, debtId);
  if (named !== undefined && plan?.id !== named) {
    throw new ApiError('business_rule_violation', "payment_plan_id must be the debt's active payment plan.", { param: 'payment_plan_id' });
  }
  return plan;
}

/** Writes the balance item of money that moved on `payment` of the locked `debt` (`amount` > 0). */
function moneyMoved(trx: Knex.Transaction, debt: DebtRow, payment: { id: string }, type: 'payment' | 'refund', amount: number): Promise<void> {
  return recordBalanceItem(trx, {
    type,
    tenantId: debt.tenant_id,
    organisationId: debt.organisation_id,
    currency: debt.currency,
    paymentId: payment.id,
    debtId: debt.id,
    amount,
  });
}

/** Locks the debt, then its payment `id` (which must be the debt's). */
async function lockPayment(trx: Knex.Transaction, tenantId: string, debtId: string, id: string): Promise<{ debt: DebtRow; payment: PaymentRow }> {
  const debt = await lockDebt(trx, tenantId, debtId);
  const payment = await findOwned<PaymentRow>(trx, paymentsResource, tenantId, id, { forUpdate: true });
  if (payment.debt_id !== debt.id) throw new ApiError('resource_missing', `No such payment: '${id}'`);
  return { debt, payment };
}

/**
 * Records a payment against the tenant's debt `debtId`: locks the debt, checks the payment, inserts
 * it with `payment.created`, and when it is `succeeded` counts it (debts/moves.ts `countMoney`) and
 * writes its balance item, in one transaction.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition`, 422 `business_rule_violation`
 *   (param `currency`, `amount` or `payment_plan_id`)
 */
export async function createPayment(db: Knex, tenantId: string, debtId: string, input: PaymentCreate, note: StatusNote): Promise<Payment> {
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, tenantId, debtId);
    requireCollecting(debt);
    if (input.currency !== debt.currency) {
      throw new ApiError('business_rule_violation', `currency must be the debt's currency (${debt.currency}).`, { param: 'currency' });
    }
    await assertFits(trx, tenantId, debt, input.amount);
    const plan = await planFor(trx, tenantId, debt.id, input.payment_plan_id);
    const status = input.status ?? 'succeeded';
    // The payment's event is recorded first: it is the cause of the plan and debt events that may follow.
    const payment = await createOwned(trx, tenantId, payments, {
      debt_id: debt.id,
      amount: input.amount,
      currency: input.currency,
      status,
      payment_provider: input.payment_provider ?? null,
      payment_plan_id: plan?.id ?? null,
      transaction_at: input.transaction_at ?? trx.fn.now(),
      transaction_ref: input.transaction_ref ?? null,
      metadata: input.metadata,
    });
    if (status === 'succeeded') {
      await countMoney(trx, tenantId, debt, input.amount, note, plan);
      await moneyMoved(trx, debt, payment, 'payment', input.amount);
    }
    return payment;
  });
}

/**
 * `PUT`/`PATCH` of a payment: moves a pending payment to its outcome (`payment.<outcome>`; a
 * success is counted then), and/or merges metadata.
 * @throws ApiError 404, 409 `invalid_state_transition` (payment not pending, or the debt no longer
 *   accepts payments), 422 `business_rule_violation` (param `amount`)
 */
export async function updatePayment(db: Knex, tenantId: string, debtId: string, id: string, input: PaymentUpdate, note: StatusNote): Promise<Payment> {
  return db.transaction(async (trx) => {
    const { debt, payment } = await lockPayment(trx, tenantId, debtId, id);
    const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (input.status !== undefined) {
      changes.status = requirePaymentTransition(payment.status, OUTCOME_MOVES[input.status]);
      if (input.status === 'succeeded') {
        requireCollecting(debt);
        await assertFits(trx, tenantId, debt, payment.amount, payment.id);
      }
    }
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(payment.metadata, input.metadata));
    const [row] = await tenantRows(trx, paymentsResource, tenantId).where('payments.id', payment.id).update(changes).returning('*');
    const updated = toPayment(row as PaymentRow);
    if (input.status !== undefined) {
      await recordEvent(trx, paymentsResource, tenantId, `payment.${input.status}`, updated);
      if (input.status === 'succeeded') {
        const plan = await lockActivePlan(trx, tenantId, debt.id);
        const forPlan = payment.payment_plan_id === null || payment.payment_plan_id === plan?.id ? plan : undefined;
        await countMoney(trx, tenantId, debt, payment.amount, note, forPlan);
        await moneyMoved(trx, debt, payment, 'payment', payment.amount);
      }
    }
    return updated;
  });
}

/**
 * A provider's report that pending payment `id` failed (the test helper of docs/api.md section 15
 * simulates it): the payment moves to `failed` (`payment.failed`) as `PATCH` with `status: failed`
 * moves it, its reserved amount released.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (the payment is not pending)
 */
export async function failPayment(db: Knex, tenantId: string, id: string, note: StatusNote): Promise<Payment> {
  const payment = await findOwned<PaymentRow>(db, paymentsResource, tenantId, id);
  return updatePayment(db, tenantId, payment.debt_id, id, { status: 'failed' }, note);
}

/**
 * Refunds a succeeded payment, all that is left by default (`payment.refunded`); the debt's
 * `amount_paid` falls by the refund and a `paid` debt moves back to `resumed`.
 * @throws ApiError 404, 409 `invalid_state_transition` (not succeeded), 422 `business_rule_violation`
 *   (param `amount`: more than is left to refund)
 */
export async function refundPayment(db: Knex, tenantId: string, debtId: string, id: string, input: PaymentRefund, note: StatusNote): Promise<Payment> {
  return db.transaction(async (trx) => {
    const { debt, payment } = await lockPayment(trx, tenantId, debtId, id);
    const left = payment.amount - payment.amount_refunded;
    const amount = input.amount ?? left;
    const status = requirePaymentTransition(payment.status, 'refund', amount === left);
    if (amount > left) throw new ApiError('business_rule_violation', `amount exceeds what is left to refund (${left}).`, { param: 'amount' });
    const [row] = await tenantRows(trx, paymentsResource, tenantId)
      .where('payments.id', payment.id)
      .update({ status, amount_refunded: payment.amount_refunded + amount, updated_at: trx.fn.now() })
      .returning('*');
    const refunded = toPayment(row as PaymentRow);
    await recordEvent(trx, paymentsResource, tenantId, 'payment.refunded', refunded);
    await countMoney(trx, tenantId, debt, -amount, note);
    await moneyMoved(trx, debt, payment, 'refund', amount);
    return refunded;
  });
}
