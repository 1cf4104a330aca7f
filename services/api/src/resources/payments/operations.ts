/**
 * Payments (docs/api.md sections 5 and 8): under a debt (`/debts/{debtId}/payments`: record,
 * list, search, retrieve, update the outcome, refund) and across the tenant (`/payments`: list,
 * search, retrieve); behind `debts:write` / `debts:read`. Another tenant's (or no) debt is 404,
 * for the list too (not an empty list); a payment is reached under its own debt only. Every
 * read and write takes `expand[]` (docs/api.md section 10).
 */
import { ApiError } from '@dms/errors';
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import { searchQuery } from '../../search/query-schema.js';
import { Payment, PaymentCreate, PaymentRefund, PaymentUpdate, type PaymentRow } from './schemas.js';
import { createPayment, refundPayment, toPayment, updatePayment } from './store.js';
import { PAYMENT_SEARCH_FIELDS } from './search.js';
import { PAYMENT_EXPANSIONS } from './expansion.js';

const scopes = { read: 'debts:read', write: 'debts:write' } as const;
const nested = crud({ path: '/debts/{debtId}/payments', idPrefix: 'pay', tag: 'Payments', noun: 'payment', ...scopes, parentParams: { debtId: 'deb' } });
const top = crud({ path: '/payments', idPrefix: 'pay', tag: 'Payments', noun: 'payment', ...scopes });
const object = { name: 'Payment', schema: Payment };
const expand = expandQuery(PAYMENT_EXPANSIONS);
/** Serializes a page of rows with the request's `expand[]` (one query per relation). */
const serializer = (i: OperationInput<unknown, unknown>) => (rows: PaymentRow[]) => expanderFor(PAYMENT_EXPANSIONS, i)(rows.map(toPayment));
/** Expands one payment with the request's `expand[]`. */
const one = async (i: OperationInput<unknown, unknown>, payment: Payment | Promise<Payment>) => expandOne(PAYMENT_EXPANSIONS, i, await payment);
const note = (i: OperationInput<unknown, unknown>) => ({ whodunnit: i.principal.clientId });

/** 404 unless the path's debt is the tenant's; narrows a list to it. */
async function debtScope(i: OperationInput<unknown, unknown>) {
  const debtId = i.params.debtId!;
  await findOwned(i.ctx.db, 'debts', i.tenantId, debtId);
  return { debtId, narrow: (q: import('@dms/db').Knex.QueryBuilder) => void q.where('payments.debt_id', debtId) };
}

/** The operations of `/debts/{debtId}/payments` and `/payments`. */
export const paymentOperations: AnyOperation[] = [
  defineOperation({
    ...nested.list,
    summary: "List a debt's payments",
    description: undefined,
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const { debtId, narrow } = await debtScope(i);
      return listPage<PaymentRow, Payment>(i, { table: 'payments', narrow, counter: () => ['payments', debtId], serialize: serializer(i) });
    },
  }),
  defineOperation({
    ...nested.search,
    operationId: 'searchDebtPayments',
    summary: "Search a debt's payments",
    query: searchQuery(PAYMENT_SEARCH_FIELDS, expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: async (i) =>
      searchPage<PaymentRow, Payment>(i, { table: 'payments', narrow: (await debtScope(i)).narrow, fields: PAYMENT_SEARCH_FIELDS, serialize: serializer(i) }),
  }),
  defineOperation({
    ...nested.create,
    summary: 'Record a payment against a debt',
    description:
      "`succeeded` (default) updates the debt's `summary` in the same transaction, pays the active plan's oldest unpaid instalments, and a payment that clears the balance moves the debt to `paid`. `pending` reserves its amount until `PATCH` gives its outcome. Overpayments (with the pending ones), another currency and payments on a debt that does not collect are rejected and change nothing.",
    query: querySchema(expand),
    body: { name: 'PaymentCreate', schema: PaymentCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment.created', 'payment_plan.updated', 'payment_plan.completed', 'debt.updated', 'debt.paid'],
    handler: (i) => one(i, createPayment(i.ctx.db, i.tenantId, i.params.debtId!, i.body, note(i))),
  }),
  defineOperation({
    ...nested.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      one(
        i,
        retrieveOne(i, 'payments', (row: PaymentRow) => {
          // A payment is reached only through its own debt: under another debt it does not exist.
          if (row.debt_id !== i.params.debtId) throw new ApiError('resource_missing', `No such payment: '${row.id}'`);
          return toPayment(row);
        }),
      ),
  }),
  defineOperation({
    ...nested.update,
    description:
      'Moves a `pending` payment to `succeeded`, `failed` or `canceled` (any other move is 409) and/or merges `metadata`. A success counts as a new succeeded payment does.',
    query: querySchema(expand),
    body: { name: 'PaymentUpdate', schema: PaymentUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment.succeeded', 'payment.failed', 'payment.canceled', 'payment_plan.updated', 'payment_plan.completed', 'debt.updated', 'debt.paid'],
    handler: (i) => one(i, updatePayment(i.ctx.db, i.tenantId, i.params.debtId!, i.params.id!, i.body, note(i))),
  }),
  defineOperation({
    ...nested.create,
    path: '/debts/{debtId}/payments/{id}/refund',
    operationId: 'refundPayment',
    summary: 'Refund a payment',
    description:
      "Refunds a `succeeded` (or partly refunded) payment: `amount` or, by default, all that is left. The debt's `amount_paid` falls by it; a `paid` debt moves back to `resumed`.",
    pathParams: { debtId: 'deb', id: 'pay' },
    query: querySchema(expand),
    body: { name: 'PaymentRefund', schema: PaymentRefund, optional: true },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment.refunded', 'debt.updated', 'debt.resumed'],
    handler: (i) => one(i, refundPayment(i.ctx.db, i.tenantId, i.params.debtId!, i.params.id!, i.body, note(i))),
  }),
  defineOperation({
    ...top.list,
    operationId: 'listAllPayments',
    summary: "List the tenant's payments",
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<PaymentRow, Payment>(i, { table: 'payments', counter: () => ['payments_all'], serialize: serializer(i) }),
  }),
  defineOperation({
    ...top.search,
    operationId: 'searchAllPayments',
    summary: "Search the tenant's payments",
    query: searchQuery(PAYMENT_SEARCH_FIELDS, expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<PaymentRow, Payment>(i, { table: 'payments', fields: PAYMENT_SEARCH_FIELDS, serialize: serializer(i) }),
  }),
  defineOperation({
    ...top.retrieve,
    operationId: 'retrieveTenantPayment',
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) => one(i, retrieveOne(i, 'payments', toPayment)),
  }),
];
