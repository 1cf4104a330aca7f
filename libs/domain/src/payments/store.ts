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
import { lockActivePlan } from '../payment-plans/store.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { shareAccount } from '../payouts/accounts.js';
import { recordBalanceItem } from '../payouts/ledger.js';
import { paymentsResource } from './resource.js';
import { refundAtProvider, type ProviderRefundOptions } from './provider-refunds.js';
import { OUTCOME_MOVES, requirePaymentTransition } from './states.js';
import { assertFits, pendingChanges, requireCollecting } from './terms.js';
import { type Payment, type PaymentCreate, type PaymentRefund, type PaymentRow, type PaymentUpdate } from './schemas.js';

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

/** The organisation's configurations as the payout account's writer lock returns them (its fee terms). */
type FeeTerms = OrganisationRow['configurations'];

/**
 * Takes the payout account's writer lock (payouts/accounts.ts `shareAccount`) for money about to
 * move on the locked `debt`, before the transaction writes any event: a payout run holds the
 * account first and bumps the list counters (balance items, payouts, events) after it, so a writer
 * that bumped the events counter before waiting for the account could deadlock with the run.
 * @returns the fee terms in force, for `moneyMoved`
 */
function holdPayoutAccount(trx: Knex.Transaction, debt: DebtRow): Promise<FeeTerms> {
  return shareAccount(trx, debt.tenant_id, debt.organisation_id, debt.currency);
}

/** Writes the balance item of money that moved on `payment` of the locked `debt` (`amount` > 0), under `holdPayoutAccount`'s lock. */
function moneyMoved(trx: Knex.Transaction, debt: DebtRow, payment: { id: string }, type: 'payment' | 'refund', amount: number, terms: FeeTerms): Promise<void> {
  const move = {
    type,
    tenantId: debt.tenant_id,
    organisationId: debt.organisation_id,
    currency: debt.currency,
    paymentId: payment.id,
    debtId: debt.id,
    amount,
  };
  return recordBalanceItem(trx, move, terms);
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
 * writes its balance item, in one transaction. `providerManaged` only from the domain's own provider
 * payments (portal/pay.ts, portal/charges.ts), never from a request: only those are refunded at the
 * provider and moved by its callbacks.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition`, 422 `business_rule_violation`
 *   (param `currency`, `amount` or `payment_plan_id`)
 */
export async function createPayment(
  db: Knex,
  tenantId: string,
  debtId: string,
  input: PaymentCreate,
  note: StatusNote,
  providerManaged = false,
): Promise<Payment> {
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, tenantId, debtId);
    requireCollecting(debt);
    if (input.currency !== debt.currency) {
      throw new ApiError('business_rule_violation', `currency must be the debt's currency (${debt.currency}).`, { param: 'currency' });
    }
    await assertFits(trx, tenantId, debt, input.amount);
    const plan = await planFor(trx, tenantId, debt.id, input.payment_plan_id);
    const status = input.status ?? 'succeeded';
    const terms = status === 'succeeded' ? await holdPayoutAccount(trx, debt) : undefined;
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
      provider_managed: providerManaged,
    });
    if (terms) {
      await countMoney(trx, tenantId, debt, input.amount, note, plan);
      await moneyMoved(trx, debt, payment, 'payment', input.amount, terms);
    }
    return payment;
  });
}

/**
 * `PUT`/`PATCH` of a payment, in one transaction under the debt's and the payment's locks: changes
 * a pending payment's amount, currency or transaction (`payment.updated`), moves a pending payment
 * to its outcome (`payment.<outcome>`; a success is counted then, at its new amount), and/or merges
 * metadata (alone: `payment.updated`, as for every resource). A refusal changes nothing.
 * @throws ApiError 404, 409 `invalid_state_transition` (payment not pending, or the debt no longer
 *   accepts payments), 422 `business_rule_violation` (param `amount` or `currency`; or any term of
 *   a payment taken through the provider, `provider_managed`, whose terms only the provider sets)
 */
export async function updatePayment(db: Knex, tenantId: string, debtId: string, id: string, input: PaymentUpdate, note: StatusNote): Promise<Payment> {
  return db.transaction(async (trx) => {
    const { debt, payment } = await lockPayment(trx, tenantId, debtId, id);
    const fields = await pendingChanges(trx, tenantId, debt, payment, input);
    const amount = (fields.amount as number | undefined) ?? payment.amount;
    const write = async (values: Record<string, unknown>) =>
      toPayment(
        (
          (await tenantRows(trx, paymentsResource, tenantId)
            .where('payments.id', payment.id)
            .update({ ...values, updated_at: trx.fn.now() })
            .returning('*')) as PaymentRow[]
        )[0]!,
      );
    const outcome = input.status;
    let terms: FeeTerms | undefined;
    if (outcome !== undefined) {
      requirePaymentTransition(payment.status, OUTCOME_MOVES[outcome]);
      if (outcome === 'succeeded') {
        requireCollecting(debt);
        await assertFits(trx, tenantId, debt, amount, payment.id);
        terms = await holdPayoutAccount(trx, debt);
      }
    }
    const metadata = input.metadata === undefined ? {} : { metadata: JSON.stringify(mergeMetadata(payment.metadata, input.metadata)) };
    // The pending payment's new terms, or new metadata alone, are an event of their own, recorded
    // before its outcome's (metadata given with an outcome goes with the outcome's event).
    let updated: Payment | undefined;
    if (Object.keys(fields).length || (outcome === undefined && input.metadata !== undefined)) {
      updated = await write({ ...fields, ...metadata });
      await recordEvent(trx, paymentsResource, tenantId, 'payment.updated', updated);
    }
    if (outcome === undefined) return updated ?? write(metadata);
    updated = await write({ status: outcome, ...(updated ? {} : metadata) });
    await recordEvent(trx, paymentsResource, tenantId, `payment.${outcome}`, updated);
    if (terms) {
      const plan = await lockActivePlan(trx, tenantId, debt.id);
      const forPlan = payment.payment_plan_id === null || payment.payment_plan_id === plan?.id ? plan : undefined;
      await countMoney(trx, tenantId, debt, amount, note, forPlan);
      await moneyMoved(trx, debt, payment, 'payment', amount, terms);
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
 * `amount_paid` falls by the refund and a `paid` debt moves back to `resumed`. With `provider`, a
 * provider's payment is refunded there first, under the locks but before the payout account's lock
 * and any event, so a refusal leaves nothing to undo (provider-refunds.ts).
 * @throws ApiError 404, 409 `invalid_state_transition` (not succeeded), 422 `business_rule_violation`
 *   (param `amount`: more than is left), 402 `payment_provider_refused`, 502 `payment_provider_unavailable`
 */
export async function refundPayment(
  db: Knex,
  tenantId: string,
  debtId: string,
  id: string,
  input: PaymentRefund,
  note: StatusNote,
  provider?: ProviderRefundOptions,
): Promise<Payment> {
  return db.transaction(async (trx) => {
    const { debt, payment } = await lockPayment(trx, tenantId, debtId, id);
    const left = payment.amount - payment.amount_refunded;
    const amount = input.amount ?? left;
    const status = requirePaymentTransition(payment.status, 'refund', amount === left);
    if (amount > left) throw new ApiError('business_rule_violation', `amount exceeds what is left to refund (${left}).`, { param: 'amount' });
    if (provider) await refundAtProvider(trx, debt, payment, amount, provider);
    const terms = await holdPayoutAccount(trx, debt);
    const [row] = await tenantRows(trx, paymentsResource, tenantId)
      .where('payments.id', payment.id)
      .update({ status, amount_refunded: payment.amount_refunded + amount, updated_at: trx.fn.now() })
      .returning('*');
    const refunded = toPayment(row as PaymentRow);
    await recordEvent(trx, paymentsResource, tenantId, 'payment.refunded', refunded);
    await countMoney(trx, tenantId, debt, -amount, note);
    await moneyMoved(trx, debt, payment, 'refund', amount, terms);
    return refunded;
  });
}
