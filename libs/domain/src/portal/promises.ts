/**
 * Pay-later promises (docs/api.md section 18 "Pay later"): one payment of `amount` (minor units) of
 * a debt on `pay_on` (`YYYY-MM-DD`), by a method saved at the portal's checkout, which the worker
 * charges that day (charges.ts). Stored in `payment_promises` with the event `payment.promised`
 * (the promise as its object) in the caller's transaction. Never a card number: the provider's
 * reference of the method and a label.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import { iso } from '../kernel/schemas.js';
import { paymentsResource } from '../payments/resource.js';
import type { PlanPaymentMethod } from '../payment-plans/store.js';
import { PROMISE_MACHINE } from './states.js';

/** The table of promises. */
export const PROMISES_TABLE = 'payment_promises';

/** A stored promise. */
export interface PromiseRow {
  id: string;
  tenant_id: string;
  debt_id: string;
  customer_id: string;
  amount: number | string;
  currency: string;
  pay_on: string | Date;
  payment_method_provider: string;
  payment_method_reference: string;
  payment_method_label: string;
  status: 'active' | 'kept' | 'broken';
  payment_id: string | null;
  /** The communication that reminded the customer the day before (reminders.ts), once. */
  reminder_communication_id: string | null;
  /** When the worker looks at the reminder again after the contact rules held it back (null: from the day before). */
  reminder_next_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A promise as events show it (`payment.promised`). */
export interface PaymentPromise {
  id: string;
  object: 'payment_promise';
  debt: string;
  amount: number;
  currency: string;
  pay_on: string;
  status: PromiseRow['status'];
  payment_method: { provider: string; label: string };
  payment: string | null;
  created_at: string;
}

/** A `date` column as `YYYY-MM-DD` (node-postgres reads one as local midnight). */
export const calendarDay = (d: string | Date): string =>
  typeof d === 'string' ? d.slice(0, 10) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The public form of a row. */
export function toPromise(row: PromiseRow): PaymentPromise {
  return {
    id: row.id,
    object: 'payment_promise',
    debt: row.debt_id,
    amount: Number(row.amount),
    currency: row.currency,
    pay_on: calendarDay(row.pay_on),
    status: row.status,
    payment_method: { provider: row.payment_method_provider, label: row.payment_method_label },
    payment: row.payment_id,
    created_at: iso(row.created_at)!,
  };
}

/** What a new promise holds. */
export interface NewPromise {
  tenantId: string;
  debtId: string;
  customerId: string;
  amount: number;
  currency: string;
  payOn: string;
  method: PlanPaymentMethod;
}

/**
 * Stores an active promise of the locked debt and records `payment.promised`.
 * @throws ApiError 409 `resource_conflict` when the debt already has an active promise
 */
export async function insertPromise(trx: Knex.Transaction, p: NewPromise): Promise<PaymentPromise> {
  const active = await trx(PROMISES_TABLE).where({ tenant_id: p.tenantId, debt_id: p.debtId, status: 'active' }).first('id');
  if (active) throw new ApiError('resource_conflict', 'The debt already has a promise to pay.');
  const [row] = await trx(PROMISES_TABLE)
    .insert({
      id: newId('ppr'),
      tenant_id: p.tenantId,
      debt_id: p.debtId,
      customer_id: p.customerId,
      amount: p.amount,
      currency: p.currency,
      pay_on: p.payOn,
      payment_method_provider: p.method.provider,
      payment_method_reference: p.method.reference,
      payment_method_label: p.method.label,
    })
    .returning('*');
  const promise = toPromise(row as PromiseRow);
  await recordEvent(trx, paymentsResource, p.tenantId, 'payment.promised', promise);
  return promise;
}

/** Moves the locked promise by `move` (PROMISE_MACHINE: `keep` or `break`), with the payment that charged it. */
export async function settlePromise(trx: Knex.Transaction, promise: PromiseRow, move: 'keep' | 'break', paymentId: string | null): Promise<void> {
  const status = PROMISE_MACHINE.require(promise.status, move);
  await trx(PROMISES_TABLE).where({ id: promise.id }).update({ status, payment_id: paymentId, updated_at: trx.fn.now() });
}

/** The debt's active promise, or undefined. */
export async function activePromise(db: Knex | Knex.Transaction, tenantId: string, debtId: string): Promise<PaymentPromise | undefined> {
  const row = (await db(PROMISES_TABLE).where({ tenant_id: tenantId, debt_id: debtId, status: 'active' }).first()) as PromiseRow | undefined;
  return row ? toPromise(row) : undefined;
}
