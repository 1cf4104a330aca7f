/**
 * Payments (CONTRACT sections 5 and 6): money received against a debt. A payment is accepted only
 * while the debt collects (`prepared`, `resumed`, `paused`), in the debt's currency, for at most
 * the remaining balance; it raises `amount_paid` in the same transaction, and the payment that
 * clears the balance moves the debt to `paid`. A rejected payment changes nothing.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../db/outbox.js';
import { findOwned, tenantRows } from '../db/scoped.js';
import type { JsonSchema } from '../http/validation.js';
import { requireTransition } from './debt-lifecycle.js';
import { moveLockedDebt } from './debt-moves.js';
import type { DebtRow } from './debts.js';
import { CURRENCIES, currencySchema, iso, metadataSchema, minorUnitsSchema, textSchema, timestampSchema, timestampProperties } from './schema-parts.js';

/** A row of `payments`; `amount` in minor units. */
export interface PaymentRow {
  id: string;
  seq: number;
  tenant_id: string;
  debt_id: string;
  amount: number;
  currency: string;
  transaction_at: Date;
  transaction_ref: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/** The public payment object. */
export interface Payment {
  id: string;
  object: 'payment';
  debt: string;
  amount: number;
  currency: string;
  transaction_at: string;
  transaction_ref: string | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

/** A validated create body. */
export interface PaymentInput {
  amount: number;
  currency: string;
  transaction_at?: string;
  transaction_ref?: string;
  metadata?: Record<string, string>;
}

/** JSON Schemas (2020-12) of the create body and of the response object. */
export const paymentSchemas: { create: JsonSchema; object: JsonSchema } = {
  create: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'currency'],
    properties: {
      amount: { ...minorUnitsSchema, minimum: 1, description: 'Amount received, minor units (> 0, at most the remaining balance).' },
      currency: { ...currencySchema, description: "ISO 4217 currency code; must be the debt's." },
      transaction_at: { ...timestampSchema, description: 'When the money was received (RFC 3339); defaults to now.' },
      transaction_ref: textSchema(200, 'Your reference of the transaction (bank or PSP reference).'),
      metadata: metadataSchema,
    },
  },
  object: {
    type: 'object',
    required: ['id', 'object', 'debt', 'amount', 'currency', 'transaction_at', 'transaction_ref', 'metadata', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['pay_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'payment' },
      debt: { type: 'string', description: 'Id of the debt paid.' },
      amount: { type: 'integer' },
      currency: { type: 'string', enum: [...CURRENCIES] },
      transaction_at: { type: 'string', format: 'date-time' },
      transaction_ref: { type: ['string', 'null'] },
      metadata: metadataSchema,
      ...timestampProperties,
    },
  },
};

/** Maps a row to the public object. */
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

/**
 * Checks a payment against the locked debt, in the order a client can act on: state, currency, amount.
 * @throws ApiError 409 `invalid_state_transition`, 422 `business_rule_violation` (param `currency` or `amount`)
 */
function assertAcceptable(debt: DebtRow, input: PaymentInput): void {
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
 * it, raises `amount_paid`, and writes `payment.created` (and `debt.paid` when the balance is
 * cleared), all in one transaction.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition`, 422 `business_rule_violation`
 */
export async function createPayment(db: Knex, tenantId: string, debtId: string, input: PaymentInput): Promise<Payment> {
  return db.transaction(async (trx) => {
    const debt = await findOwned<DebtRow>(trx, 'debts', tenantId, debtId, { forUpdate: true });
    assertAcceptable(debt, input);
    const [row] = await trx('payments')
      .insert({
        id: newId('pay'),
        tenant_id: tenantId,
        debt_id: debt.id,
        amount: input.amount,
        currency: input.currency,
        transaction_at: input.transaction_at ?? trx.fn.now(),
        transaction_ref: input.transaction_ref ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
      })
      .returning('*');
    const payment = toPayment(row as PaymentRow);
    // The payment's event first: it is the cause of the `debt.paid` that may follow.
    await recordEvent(trx, tenantId, 'payment.created', payment);
    const amountPaid = debt.amount_paid + input.amount;
    if (amountPaid === debt.amount_total) {
      await moveLockedDebt(trx, tenantId, debt, 'pay', null, { amount_paid: amountPaid });
    } else {
      await tenantRows(trx, 'debts', tenantId).where('debts.id', debt.id).update({ amount_paid: amountPaid, updated_at: trx.fn.now() });
    }
    return payment;
  });
}
