/**
 * A customer pays through a provider from the portal (docs/api.md section 18
 * "Payments"): the amount is checked against the organisation's `payment_options_configuration`
 * minimum and the balance, the payment is created `pending` with its provider and the checkout's
 * reference (`transaction_ref`), and the provider's verified outcome moves it to `succeeded` or
 * `failed`, all through the payments store (createPayment/updatePayment: one transaction with its
 * events, the debt counted and moved as the API's payments are). Whodunnit `customer:<id>`,
 * metadata `source: portal`. Amounts in minor units.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { debtsResource } from '../debts/resource.js';
import { organisationsResource } from '../organisations/resource.js';
import { tenantRows } from '../kernel/scoped.js';
import { paymentsResource } from '../payments/resource.js';
import { createPayment, updatePayment } from '../payments/store.js';
import type { Payment, PaymentRow } from '../payments/schemas.js';
import { recordSetupOutcome } from './arrangements.js';

/** The bounds of a portal payment of a debt: `min` ≤ amount ≤ `max` (minor units). */
export interface PayBounds {
  min: number;
  max: number;
  currency: string;
}

/** Why an amount is refused: the message key's last part (`pay:amount.<reason>`). */
export type AmountProblem = 'missing' | 'below_minimum' | 'above_balance';

/** The bounds for the customer's debt `debtId`: at least the organisation's minimum (capped by the balance), at most the balance. */
export async function payBounds(db: Knex, tenantId: string, customerId: string, debtId: string): Promise<PayBounds | undefined> {
  const row = await tenantRows(db, debtsResource, tenantId)
    .join(tenantRows(db, organisationsResource, tenantId).select('id', 'payment_options_configuration').as('o'), 'o.id', 'debts.organisation_id')
    .where({ 'debts.id': debtId, 'debts.customer_id': customerId })
    .whereNot('debts.status', 'deleted')
    .first<{ amount_remaining: number; currency: string; options: { min_payment_amount?: number } | null } | undefined>(
      'debts.amount_remaining',
      'debts.currency',
      'o.payment_options_configuration as options',
    );
  if (!row) return undefined;
  const min = Math.min(Math.max(1, row.options?.min_payment_amount ?? 1), row.amount_remaining);
  return { min, max: row.amount_remaining, currency: row.currency };
}

/** Checks `amount` (minor units, or undefined when not a number) against `bounds`; undefined when it fits. */
export function amountProblem(amount: number | undefined, bounds: PayBounds): AmountProblem | undefined {
  if (amount === undefined || !Number.isInteger(amount) || amount <= 0) return 'missing';
  if (amount < bounds.min) return 'below_minimum';
  if (amount > bounds.max) return 'above_balance';
  return undefined;
}

/** What a checkout started: the pending payment's provider and reference. */
export interface PortalPaymentStart {
  tenantId: string;
  customerId: string;
  debtId: string;
  amount: number;
  currency: string;
  provider: string;
  reference: string;
}

/**
 * Creates the pending payment of a checkout (the API's `createPayment`), marked `provider_managed`
 * (taken by the platform through its provider: refunded there, moved by its callbacks).
 * @throws ApiError 409 (the debt no longer collects), 422 param `amount` (past the balance less pending payments)
 */
export function startPortalPayment(db: Knex, p: PortalPaymentStart): Promise<Payment> {
  const input = {
    amount: p.amount,
    currency: p.currency as Payment['currency'],
    status: 'pending' as const,
    payment_provider: p.provider,
    transaction_ref: p.reference,
    metadata: { source: 'portal' },
  };
  return createPayment(db, p.tenantId, p.debtId, input, { whodunnit: `customer:${p.customerId}` }, true);
}

/**
 * The pending or settled payment the platform took through provider `provider` with checkout
 * `reference` (`provider_managed`: a payment a tenant recorded with the same name and reference is
 * never found, so neither the provider's callbacks nor its checkout pages can move it).
 */
export async function paymentByReference(
  db: Knex,
  tenantId: string,
  provider: string,
  reference: string,
): Promise<(PaymentRow & { customer_id: string }) | undefined> {
  return tenantRows(db, paymentsResource, tenantId)
    .join('debts', 'debts.id', 'payments.debt_id')
    .where({ 'payments.payment_provider': provider, 'payments.transaction_ref': reference, 'payments.provider_managed': true })
    .first<(PaymentRow & { customer_id: string }) | undefined>('payments.*', 'debts.customer_id');
}

/** A verified provider outcome. */
export interface ProviderOutcome {
  eventId: string;
  status: 'succeeded' | 'failed';
  tenantId: string;
  debtId: string;
  reference: string;
  /** The method a checkout opened with `saveMethod` saved (arrangements.ts). */
  savedMethod?: { reference: string; label: string };
}

/**
 * Records a verified outcome once (idempotent by the provider's event id, kept as the payment's
 * `metadata.provider_event`): a pending payment moves to the outcome (the API's `updatePayment`);
 * the same event again, or any outcome of a settled payment, changes nothing. An outcome of a
 * checkout that only saved a method (no payment of that reference) goes to `recordSetupOutcome`.
 * @returns `recorded`, `duplicate` (nothing changed) or `unknown` (no such payment)
 */
export async function recordProviderOutcome(db: Knex, provider: string, o: ProviderOutcome): Promise<'recorded' | 'duplicate' | 'unknown'> {
  const payment = await paymentByReference(db, o.tenantId, provider, o.reference);
  if (!payment) {
    const setup = await recordSetupOutcome(db, provider, o);
    return setup === 'refused' ? 'recorded' : setup;
  }
  if (payment.debt_id !== o.debtId) return 'unknown';
  if (payment.status !== 'pending') return 'duplicate';
  try {
    await updatePayment(
      db,
      o.tenantId,
      o.debtId,
      payment.id,
      { status: o.status, metadata: { provider_event: o.eventId } },
      { whodunnit: `customer:${payment.customer_id}` },
    );
    return 'recorded';
  } catch (err) {
    // A concurrent delivery of the outcome settled it first: nothing more to change. Any other
    // refusal (the debt stopped taking payments) leaves the payment pending and is raised.
    const now = await paymentByReference(db, o.tenantId, provider, o.reference);
    if (err instanceof ApiError && err.code === 'invalid_state_transition' && now?.status !== 'pending') return 'duplicate';
    throw err;
  }
}
