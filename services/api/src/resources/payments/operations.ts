/**
 * Payments (docs/api.md sections 5 and 8): under a debt (`/debts/{debtId}/payments`: record,
 * list, search, retrieve, update the outcome, refund) and across the tenant (`/payments`: list,
 * search, retrieve) and of one organisation's debts (`/organisations/{organisationId}/payments`: list,
 * search; docs/api.md section 15); behind `debts:write` / `debts:read`. Another tenant's (or no) debt is 404,
 * for the list too (not an empty list); a payment is reached under its own debt only. Every
 * read and write takes `expand[]` (docs/api.md section 10). A refund of a payment of the service's
 * payment provider goes through that provider first (../../payments.ts; docs/api.md section 18).
 */
import { ApiError } from '@dms/errors';
import { debtsResource } from '@dms/domain/debts';
import { findOwned, tenantRows } from '@dms/domain/kernel';
import { organisationsResource } from '@dms/domain/organisations';
import {
  PaymentCreate,
  PaymentRefund,
  PaymentUpdate,
  createPayment,
  paymentsResource,
  refundPayment,
  toPayment,
  updatePayment,
  type Payment as PaymentObject,
  type PaymentRow,
} from '@dms/domain/payments';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { PAYMENT_EXPANSIONS } from './expansion.js';
import { IDEMPOTENCY_HEADER } from '../../middleware/idempotency.js';
import type { Request } from 'express';
import { Payment } from './schemas.js';

const scopes = { resource: paymentsResource, tag: 'Payments', read: 'debts:read', write: 'debts:write' } as const;
const nested = crud({ ...scopes, path: '/debts/{debtId}/payments', parentParams: { debtId: debtsResource.idPrefix } });
const top = crud({ ...scopes, path: '/payments' });
const object = { name: 'Payment', schema: Payment };
const show = presenter((rows: PaymentRow[]) => rows.map(toPayment), PAYMENT_EXPANSIONS);
const underDebt = nestedUnder(debtsResource, 'debtId', 'payments.debt_id');
const ofOrganisation = crud({ ...scopes, path: '/organisations/{organisationId}/payments', parentParams: { organisationId: organisationsResource.idPrefix } });

/**
 * The payments of the debts of the path's organisation (docs/api.md section 15): paged and counted
 * as a search (there is no maintained counter per organisation), `query` narrowing them further.
 * @throws ApiError 404 `resource_missing` for another tenant's or no organisation
 */
async function organisationPayments(i: Parameters<typeof listPage>[0] & { params: { organisationId: string } }) {
  const { ctx, tenantId } = i;
  await findOwned(ctx.db, organisationsResource, tenantId, i.params.organisationId);
  const debts = tenantRows(ctx.db, debtsResource, tenantId).where('debts.organisation_id', i.params.organisationId).select('debts.id');
  return searchPage<PaymentRow, PaymentObject>(i, {
    resource: paymentsResource,
    narrow: (q) => void q.whereIn('payments.debt_id', debts),
    serialize: show.page(i),
  });
}

/**
 * The request's `Idempotency-Key` scoped to its tenant and client (the middleware's scope), from
 * which a provider refund's idempotency key is derived (docs/api.md section 8); undefined without the header.
 */
function scopedRequestKey(req: Request, principal: { tenantId: string; clientId: string }): string | undefined {
  const key = req.get(IDEMPOTENCY_HEADER);
  return key === undefined ? undefined : JSON.stringify([principal.tenantId, principal.clientId, key]);
}

/** The operations of `/debts/{debtId}/payments` and `/payments`. */
export const paymentOperations: AnyOperation[] = [
  defineOperation({
    ...nested.list,
    summary: "List a debt's payments",
    description: undefined,
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<PaymentRow, PaymentObject>(i, {
        resource: paymentsResource,
        narrow: debt.narrow,
        counter: () => ['payments', debt.id],
        serialize: show.page(i),
      });
    },
  }),
  defineOperation({
    ...nested.search,
    operationId: 'searchDebtPayments',
    summary: "Search a debt's payments",
    query: searchQuery(paymentsResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: async (i) =>
      searchPage<PaymentRow, PaymentObject>(i, { resource: paymentsResource, narrow: (await underDebt(i)).narrow, serialize: show.page(i) }),
  }),
  defineOperation({
    ...nested.create,
    summary: 'Record a payment against a debt',
    description:
      "`succeeded` (default) updates the debt's `summary` in the same transaction, pays the active plan's oldest unpaid instalments, and a payment that clears the balance moves the debt to `paid`. `pending` reserves its amount until `PATCH` gives its outcome. Overpayments (with the pending ones), another currency and payments on a debt that does not collect are rejected and change nothing.",
    query: querySchema(show.expand),
    body: { name: 'PaymentCreate', schema: PaymentCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment.created', 'payment_plan.updated', 'payment_plan.completed', 'debt.updated', 'debt.paid'],
    handler: (i) => show.one(i, createPayment(i.ctx.db, i.tenantId, i.params.debtId, i.body, actor(i))),
  }),
  defineOperation({
    ...nested.retrieve,
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      retrieveOne(i, paymentsResource, (row: PaymentRow) => {
        // A payment is reached only through its own debt: under another debt it does not exist.
        if (row.debt_id !== i.params.debtId) throw new ApiError('resource_missing', `No such payment: '${row.id}'`);
        return show.row(i)(row);
      }),
  }),
  defineOperation({
    ...nested.update,
    description:
      "Moves a `pending` payment to `succeeded`, `failed` or `canceled` (any other move is 409), changes a `pending` payment's `amount`, `currency`, `transaction_at` or `transaction_ref` (`payment.updated`; checked as a new payment's are; on any other status 409), and/or merges `metadata`. A success counts as a new succeeded payment does, at the amount it then has. A refusal changes nothing.",
    query: querySchema(show.expand),
    body: { name: 'PaymentUpdate', schema: PaymentUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: [
      'payment.updated',
      'payment.succeeded',
      'payment.failed',
      'payment.canceled',
      'payment_plan.updated',
      'payment_plan.completed',
      'debt.updated',
      'debt.paid',
    ],
    handler: (i) => show.one(i, updatePayment(i.ctx.db, i.tenantId, i.params.debtId, i.params.id, i.body, actor(i))),
  }),
  defineOperation({
    ...nested.create,
    path: '/debts/{debtId}/payments/{id}/refund',
    operationId: 'refundPayment',
    summary: 'Refund a payment',
    description:
      "Refunds a `succeeded` (or partly refunded) payment: `amount` or, by default, all that is left. The debt's `amount_paid` falls by it; a `paid` debt moves back to `resumed`. A payment the service itself took through its payment provider (the portal's checkout or the worker's charges, with `payment_provider` that provider's name and a `transaction_ref`) is refunded at the provider first, with an idempotency key stable for the request (from `Idempotency-Key` when given); the provider refusing is 402 `payment_provider_refused` and the provider unreachable 502 `payment_provider_unavailable`, each changing nothing. Any other payment, including one you recorded with a provider's name such as `stripe`, is refunded in the ledger only.",
    pathParams: { debtId: 'deb', id: 'pay' },
    query: querySchema(show.expand),
    body: { name: 'PaymentRefund', schema: PaymentRefund, optional: true },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation', 'payment_provider_refused', 'payment_provider_unavailable'],
    events: ['payment.refunded', 'debt.updated', 'debt.resumed'],
    handler: (i) =>
      show.one(
        i,
        refundPayment(i.ctx.db, i.tenantId, i.params.debtId, i.params.id, i.body, actor(i), {
          through: i.ctx.payments,
          requestKey: scopedRequestKey(i.req, i.principal),
        }),
      ),
  }),
  defineOperation({
    ...top.list,
    operationId: 'listAllPayments',
    summary: "List the tenant's payments",
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<PaymentRow, PaymentObject>(i, { resource: paymentsResource, counter: () => ['payments_all'], serialize: show.page(i) }),
  }),
  defineOperation({
    ...top.search,
    operationId: 'searchAllPayments',
    summary: "Search the tenant's payments",
    query: searchQuery(paymentsResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<PaymentRow, PaymentObject>(i, { resource: paymentsResource, serialize: show.page(i) }),
  }),
  defineOperation({
    ...ofOrganisation.list,
    operationId: 'listOrganisationPayments',
    summary: "List the payments of an organisation's debts",
    description:
      "The payments of every debt owed to the organisation, newest first; `X-Total-Count` counts them up to a cap, with `X-Total-Count-Relation`. `query` narrows them (the search's fields).",
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => organisationPayments(i),
  }),
  defineOperation({
    ...ofOrganisation.search,
    operationId: 'searchOrganisationPayments',
    summary: "Search the payments of an organisation's debts",
    query: searchQuery(paymentsResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => organisationPayments(i),
  }),
  defineOperation({
    ...top.retrieve,
    operationId: 'retrieveTenantPayment',
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, paymentsResource, show.row(i)),
  }),
];
