/**
 * Payment plans (docs/api.md section 9): `POST`/`GET /debts/{debtId}/payment_plans`, `GET
 * /payment_plans` and `/payment_plans/{id}`, `PATCH /payment_plans/{id}/reschedule` and
 * `/delay`, `POST /payment_plans/{id}/cancel`; behind `debts:write` / `debts:read`. Every read
 * and write takes `expand[]` (`debt`, `payments`; docs/api.md section 10).
 */
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import { toPaymentPlan } from './active.js';
import { PaymentPlan, PaymentPlanCreate, PaymentPlanDelay, PaymentPlanReschedule, type PaymentPlanRow } from './schemas.js';
import { cancelPaymentPlan, createPlan, delayPlan, reschedulePlan } from './store.js';
import { PAYMENT_PLAN_EXPANSIONS } from './expansion.js';

const scopes = { read: 'debts:read', write: 'debts:write' } as const;
const nested = crud({
  path: '/debts/{debtId}/payment_plans',
  idPrefix: 'pp',
  tag: 'Payment plans',
  noun: 'payment plan',
  ...scopes,
  parentParams: { debtId: 'deb' },
});
const top = crud({ path: '/payment_plans', idPrefix: 'pp', tag: 'Payment plans', noun: 'payment plan', ...scopes });
const object = { name: 'PaymentPlan', schema: PaymentPlan };
const expand = expandQuery(PAYMENT_PLAN_EXPANSIONS);
/** Serializes a page of rows with the request's `expand[]` (one query per relation). */
const serializer = (i: OperationInput<unknown, unknown>) => (rows: PaymentPlanRow[]) =>
  expanderFor(PAYMENT_PLAN_EXPANSIONS, i)(rows.map((r) => toPaymentPlan(r)));
/** Expands one plan with the request's `expand[]`. */
const one = async (i: OperationInput<unknown, unknown>, plan: PaymentPlan | Promise<PaymentPlan>) => expandOne(PAYMENT_PLAN_EXPANSIONS, i, await plan);
const note = (i: OperationInput<unknown, unknown>) => ({ whodunnit: i.principal.clientId });

/** The operations of payment plans. */
export const paymentPlanOperations: AnyOperation[] = [
  defineOperation({
    ...nested.list,
    operationId: 'listDebtPaymentPlans',
    summary: "List a debt's payment plans",
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debtId = i.params.debtId!;
      await findOwned(i.ctx.db, 'debts', i.tenantId, debtId);
      return listPage<PaymentPlanRow, PaymentPlan>(i, {
        table: 'payment_plans',
        narrow: (q) => void q.where('payment_plans.debt_id', debtId),
        counter: () => ['debt_payment_plans', debtId],
        serialize: serializer(i),
      });
    },
  }),
  defineOperation({
    ...nested.create,
    description:
      "Schedules the whole `amount_remaining` from `start_on` (today or later) by `instalment_amount` or `instalment_count` (exactly one): equal instalments, the last takes the remainder; monthly dates keep the start day or the month's last day. Allowed while the debt is `prepared`, `resumed`, `paused` or `defaulted` (409 otherwise); a second active plan is 409 `resource_conflict`. The debt moves to `paying`.",
    query: querySchema(expand),
    body: { name: 'PaymentPlanCreate', schema: PaymentPlanCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'resource_conflict', 'business_rule_violation'],
    events: ['payment_plan.created', 'debt.paying'],
    handler: (i) => one(i, createPlan(i.ctx.db, i.tenantId, i.params.debtId!, i.body, note(i))),
  }),
  defineOperation({
    ...top.list,
    summary: "List the tenant's payment plans",
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<PaymentPlanRow, PaymentPlan>(i, { table: 'payment_plans', counter: () => ['payment_plans'], serialize: serializer(i) }),
  }),
  defineOperation({
    ...top.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      one(
        i,
        retrieveOne(i, 'payment_plans', (row: PaymentPlanRow) => toPaymentPlan(row)),
      ),
  }),
  defineOperation({
    ...top.update,
    path: '/payment_plans/{id}/reschedule',
    operationId: 'reschedulePaymentPlan',
    summary: 'Reschedule what is unpaid of a payment plan',
    description:
      'New `frequency`, `start_on` and `instalment_amount` or `instalment_count` for the unpaid amount; paid instalments stay. Only an active plan (409).',
    query: querySchema(expand),
    body: { name: 'PaymentPlanReschedule', schema: PaymentPlanReschedule },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['payment_plan.updated'],
    handler: (i) => one(i, reschedulePlan(i.ctx.db, i.tenantId, i.params.id!, i.body)),
  }),
  defineOperation({
    ...top.update,
    path: '/payment_plans/{id}/delay',
    operationId: 'delayPaymentPlan',
    summary: 'Delay the unpaid instalments of a payment plan',
    description: 'Shifts every unpaid instalment `days` (1 to 90) later. Only an active plan (409).',
    query: querySchema(expand),
    body: { name: 'PaymentPlanDelay', schema: PaymentPlanDelay },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['payment_plan.updated'],
    handler: (i) => one(i, delayPlan(i.ctx.db, i.tenantId, i.params.id!, i.body.days)),
  }),
  defineOperation({
    ...top.create,
    path: '/payment_plans/{id}/cancel',
    operationId: 'cancelPaymentPlan',
    summary: 'Cancel a payment plan',
    description: 'Cancels an active plan (409 otherwise); it keeps its history. A `paying` debt returns to `resumed`.',
    pathParams: { id: 'pp' },
    query: querySchema(expand),
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['payment_plan.canceled', 'debt.resumed'],
    handler: (i) => one(i, cancelPaymentPlan(i.ctx.db, i.tenantId, i.params.id!, note(i))),
  }),
];
