/**
 * A transaction row (docs/api.md section 16): a balance change the tenant reports. `Payment`
 * (a negative amount: money the customer paid the tenant directly) is a succeeded payment
 * (`POST /debts/{id}/payments`); the other types are line items (`POST /debts/{id}/line_items`):
 * `Usage` → `debt`, `Fee` → `fee`, `Interest` → `interest`, `Refund` → `refund` (positive),
 * `Credit` → `credit` (negative). A debt being worked moves to `adjusted`, as the API's line items do.
 */
import type { Knex } from '@dms/db';
import { validator } from '../../kernel/validation.js';
import { createLineItem } from '../../debts/ledger.js';
import { LineItemCreate } from '../../line-items/schemas.js';
import type { LineItemKind } from '../../line-items/kinds.js';
import { createPayment } from '../../payments/store.js';
import { PaymentCreate } from '../../payments/schemas.js';
import { extraMetadata } from '../files.js';
import { parseAmount, parseTimestamp } from '../values.js';
import { lockAccount, optional, read, required, RowError, type Cells, type RowContext } from './context.js';

const paymentBody = validator<PaymentCreate>(PaymentCreate);
const lineItemBody = validator<LineItemCreate>(LineItemCreate);

/** Where the domain's params point in a transaction row. */
export const TRANSACTION_PARAMS: Readonly<Record<string, string>> = {
  amount: 'amount',
  currency: 'amount',
  transaction_ref: 'transaction_ref',
  description: 'notes',
};

/** Each type: the line item kind it makes (none for a payment) and the sign its amount must have. */
const TYPES: Readonly<Record<string, { kind: LineItemKind | null; sign: 1 | -1 }>> = {
  payment: { kind: null, sign: -1 },
  usage: { kind: 'debt', sign: 1 },
  fee: { kind: 'fee', sign: 1 },
  interest: { kind: 'interest', sign: 1 },
  refund: { kind: 'refund', sign: 1 },
  credit: { kind: 'credit', sign: -1 },
};

/**
 * Applies a transaction row in `trx` (see the module comment).
 * @throws RowError for a cell or an unknown account, ApiError of the domain
 */
export async function applyTransaction(trx: Knex.Transaction, ctx: RowContext, cells: Cells): Promise<void> {
  const typeText = required(cells, 'transaction_type');
  const type = TYPES[typeText.toLowerCase()];
  if (!type)
    throw new RowError('transaction_type', 'invalid_transaction_type', `transaction_type must be one of Payment, Usage, Credit, Refund, Fee, Interest.`);
  const amount = read('amount', parseAmount(required(cells, 'amount'), true));
  if (amount === 0 || Math.sign(amount) !== type.sign) {
    throw new RowError('amount', 'invalid_amount', `A ${typeText} amount must be ${type.sign > 0 ? 'positive' : 'negative'}.`);
  }
  const transactionAt = read('transaction_at', parseTimestamp(required(cells, 'transaction_at')));
  const ref = required(cells, 'transaction_ref');
  const notes = optional(cells, 'notes');
  const metadata = { ...extraMetadata(cells), transaction_ref: ref };
  const debt = await lockAccount(trx, ctx, required(cells, 'account_number'));
  const note = { whodunnit: ctx.whodunnit };
  if (type.kind === null) {
    const body = paymentBody({
      amount: -amount,
      currency: debt.currency,
      status: 'succeeded',
      payment_provider: 'client',
      transaction_at: transactionAt,
      transaction_ref: ref,
      metadata: notes ? { ...metadata, notes } : metadata,
    });
    await createPayment(trx, ctx.tenantId, debt.id, body, note);
    return;
  }
  const body = lineItemBody({ kind: type.kind, amount, transaction_at: transactionAt, ...(notes ? { description: notes } : {}), metadata });
  await createLineItem(trx, ctx.tenantId, debt.id, body, ctx.whodunnit);
}
