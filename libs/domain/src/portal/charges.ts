/**
 * The worker's charges of saved methods (docs/api.md section 18 "The worker's charges"): on an
 * instalment's due date, the oldest unpaid instalment of an active plan whose authority stands;
 * on a promise's date, the promise. Each is charged once (`instalment_charges` is unique per plan,
 * instalment and date; a promise leaves `active` when charged), with the provider's idempotency key
 * `<plan id>:<sequence>:<due date>` or the promise's id, and recorded as a payment through the
 * payments store (`createPayment`: `succeeded` is counted into the plan, `failed` leaves the
 * instalment unpaid for the missed-instalment rules; `pending` waits for the provider's callback).
 * The caller holds the debt's row lock (claimed with SKIP LOCKED) and passes its transaction.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { SYSTEM_ACTOR } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import { lockActivePlan } from '../payment-plans/store.js';
import { createPayment, updatePayment } from '../payments/store.js';
import { PROMISES_TABLE, settlePromise, type PromiseRow } from './promises.js';

/** An off-session charge through the provider named `provider` (the worker's payment providers). */
export type ChargeSaved = (
  provider: string,
  req: { tenantId: string; debtId: string; amount: number; currency: string; method: string; idempotencyKey: string },
) => Promise<{ reference: string; status: 'succeeded' | 'failed' | 'pending' }>;

/** Records a charge's result as a payment of the locked debt (minor units), marked `provider_managed` (taken by the platform through its provider). */
async function recordCharge(
  trx: Knex.Transaction,
  debt: DebtRow,
  provider: string,
  amount: number,
  result: Awaited<ReturnType<ChargeSaved>>,
  extra: { payment_plan_id?: string; metadata: Record<string, string> },
): Promise<string> {
  const input = {
    amount,
    currency: debt.currency as never,
    // A failure is recorded as the API records one: created pending, then moved to `failed`.
    status: result.status === 'succeeded' ? ('succeeded' as const) : ('pending' as const),
    payment_provider: provider,
    transaction_ref: result.reference,
    ...(extra.payment_plan_id ? { payment_plan_id: extra.payment_plan_id } : {}),
    metadata: { source: 'portal', ...extra.metadata },
  };
  const note = { whodunnit: SYSTEM_ACTOR };
  const payment = await createPayment(trx, debt.tenant_id, debt.id, input, note, true);
  if (result.status === 'failed') await updatePayment(trx, debt.tenant_id, debt.id, payment.id, { status: 'failed' }, note);
  return payment.id;
}

/**
 * Charges the oldest unpaid instalment due by `today` of the locked debt's plan, once.
 * @returns the context of what was done, or undefined when nothing is due (or already charged)
 */
export async function chargeDueInstalment(trx: Knex.Transaction, debt: DebtRow, today: string, charge: ChargeSaved): Promise<string | undefined> {
  const plan = await lockActivePlan(trx, debt.tenant_id, debt.id);
  if (!plan?.payment_method_reference || plan.authority_canceled_at) return undefined;
  const due = plan.schedule.find((i) => i.status !== 'paid');
  if (!due || due.due_on > today) return undefined;
  const inserted = await trx('instalment_charges')
    .insert({ id: newId('ich'), tenant_id: debt.tenant_id, payment_plan_id: plan.id, sequence: due.sequence, due_on: due.due_on })
    .onConflict(['payment_plan_id', 'sequence', 'due_on'])
    .ignore()
    .returning('id');
  if (!inserted.length) return undefined;
  const amount = Math.min(due.amount - due.amount_paid, debt.amount_remaining);
  const provider = plan.payment_method_provider!;
  const key = `${plan.id}:${due.sequence}:${due.due_on}`;
  const result = await charge(provider, {
    tenantId: debt.tenant_id,
    debtId: debt.id,
    amount,
    currency: debt.currency,
    method: plan.payment_method_reference,
    idempotencyKey: key,
  });
  const paymentId = await recordCharge(trx, debt, provider, amount, result, { payment_plan_id: plan.id, metadata: { instalment: String(due.sequence) } });
  await trx('instalment_charges')
    .where({ id: (inserted[0] as { id: string }).id })
    .update({ outcome: result.status, payment_id: paymentId });
  return `instalment ${due.sequence} of ${plan.id} due ${due.due_on} charged: ${result.status} (${paymentId})`;
}

/**
 * Charges the locked debt's active promise due by `today`, once: `kept` when the charge succeeded
 * (or is pending at the provider), `broken` when it failed; the amount is the promise's, at most
 * what is still owed.
 * @returns the context, or undefined when no promise is due
 */
export async function chargeDuePromise(trx: Knex.Transaction, debt: DebtRow, today: string, charge: ChargeSaved): Promise<string | undefined> {
  const promise = (await trx(PROMISES_TABLE)
    .where({ tenant_id: debt.tenant_id, debt_id: debt.id, status: 'active' })
    .where('pay_on', '<=', today)
    .forUpdate()
    .first()) as PromiseRow | undefined;
  if (!promise) return undefined;
  const amount = Math.min(Number(promise.amount), debt.amount_remaining);
  const provider = promise.payment_method_provider;
  let paymentId: string | null = null;
  let move: 'keep' | 'break' = 'keep';
  if (amount > 0) {
    const result = await charge(provider, {
      tenantId: debt.tenant_id,
      debtId: debt.id,
      amount,
      currency: debt.currency,
      method: promise.payment_method_reference,
      idempotencyKey: promise.id,
    });
    paymentId = await recordCharge(trx, debt, provider, amount, result, { metadata: { promise: promise.id } });
    move = result.status === 'failed' ? 'break' : 'keep';
  }
  await settlePromise(trx, promise, move, paymentId);
  return `promise ${promise.id} charged: ${move === 'keep' ? 'kept' : 'broken'}${paymentId ? ` (${paymentId})` : ''}`;
}
