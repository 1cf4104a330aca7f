/**
 * `/debts/{debtId}/payments` (docs/api.md sections 4, 5 and 10), with `expand[]=debt`: record a payment against a debt,
 * list a debt's payments, retrieve one; behind `debts:write` / `debts:read`. Another tenant's (or no) debt is
 * 404, for the list too (not an empty list).
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { PAYMENT_EXPANSIONS } from './expansion.js';
import { crud } from '../../operations/crud.js';
import { ApiError } from '@dms/errors';
import { findOwned } from '../../db/scoped.js';
import { Payment, PaymentCreate, type PaymentRow } from './schemas.js';
import { createPayment, toPayment } from './store.js';

const names = crud({
  path: '/debts/{debtId}/payments',
  idPrefix: 'pay',
  tag: 'Payments',
  noun: 'payment',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: 'deb' },
});
const object = { name: 'Payment', schema: Payment };
const expand = expandQuery(PAYMENT_EXPANSIONS);

/** The operations of `/debts/{debtId}/payments`. */
export const paymentOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a debt's payments",
    description: undefined,
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debtId = i.params.debtId!;
      await findOwned(i.ctx.db, 'debts', i.tenantId, debtId);
      return listPage<PaymentRow, Payment>(i, {
        table: 'payments',
        narrow: (q) => void q.where('payments.debt_id', debtId),
        counter: () => ['payments', debtId],
        serialize: (rows) => expanderFor(PAYMENT_EXPANSIONS, i)(rows.map(toPayment)),
      });
    },
  }),
  defineOperation({
    ...names.create,
    summary: 'Record a payment against a debt',
    description:
      "Updates the debt's `summary` in the same transaction; a payment that clears the balance moves the debt to `paid`. Overpayments, another currency and payments on a debt that is not `prepared`, `resumed` or `paused` are rejected and change nothing.",
    query: querySchema(expand),
    body: { name: 'PaymentCreate', schema: PaymentCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment.created', 'debt.paid'],
    handler: async (i) => expandOne(PAYMENT_EXPANSIONS, i, await createPayment(i.ctx.db, i.tenantId, i.params.debtId!, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      retrieveOne(i, 'payments', (row: PaymentRow) => {
        // A payment is reached only through its own debt: under another debt it does not exist.
        if (row.debt_id !== i.params.debtId) throw new ApiError('resource_missing', `No such payment: '${row.id}'`);
        return expandOne(PAYMENT_EXPANSIONS, i, toPayment(row));
      }),
  }),
];
