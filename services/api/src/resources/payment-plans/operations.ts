/**
 * Payment plans (docs/api.md section 9): `POST`/`GET /debts/{debtId}/payment_plans`, `GET
 * /payment_plans` and `/payment_plans/{id}`, `PATCH /payment_plans/{id}/reschedule` and
 * `/delay`, the customer's time to pay (`PATCH /payment_plans/{id}/delay_next` and `/change_day`,
 * section 18), `POST /payment_plans/{id}/cancel`; behind `debts:write` / `debts:read`. Every read
 * and write takes `expand[]` (`debt`, `payments`; docs/api.md section 10).
 */
import type { EventType } from '@dms/domain';
import { cancelPaymentPlan, changeInstalmentDay, createPlan, debtsResource, delayNextInstalment, delayPlan, reschedulePlan } from '@dms/domain/debts';
import {
  PaymentPlanCreate,
  PaymentPlanCreateForDebt,
  PaymentPlanChangeDay,
  PaymentPlanDelay,
  PaymentPlanDelayNext,
  PaymentPlanReschedule,
  paymentPlansResource,
  toPaymentPlan,
  type PaymentPlan as PaymentPlanObject,
  type PaymentPlanRow,
} from '@dms/domain/payment-plans';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder, retrieveOne } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { PAYMENT_PLAN_EXPANSIONS } from './expansion.js';
import { PaymentPlan } from './schemas.js';

const scopes = { resource: paymentPlansResource, tag: 'Payment plans', read: 'debts:read', write: 'debts:write' } as const;
const nested = crud({ ...scopes, path: '/debts/{debtId}/payment_plans', parentParams: { debtId: debtsResource.idPrefix } });
const top = crud({ ...scopes, path: '/payment_plans' });
const object = { name: 'PaymentPlan', schema: PaymentPlan };
const show = presenter((rows: PaymentPlanRow[]) => rows.map((r) => toPaymentPlan(r)), PAYMENT_PLAN_EXPANSIONS);
const underDebt = nestedUnder(debtsResource, 'debtId', 'payment_plans.debt_id');
/** What every rewrite of an active plan's schedule shares: `PATCH` (and `PUT`) on `/payment_plans/{id}/…`, `expand[]`, the plan back, `payment_plan.updated`. */
const scheduleChange = {
  ...top.update,
  query: querySchema(show.expand),
  response: { ...object, status: 200 as const },
  events: ['payment_plan.updated' as EventType],
};

/** The operations of `/debts/{debtId}/payment_plans` and `/payment_plans`. */
export const paymentPlanOperations: AnyOperation[] = [
  defineOperation({
    ...nested.list,
    operationId: 'listDebtPaymentPlans',
    summary: "List a debt's payment plans",
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<PaymentPlanRow, PaymentPlanObject>(i, {
        resource: paymentPlansResource,
        narrow: debt.narrow,
        counter: () => ['debt_payment_plans', debt.id],
        serialize: show.page(i),
      });
    },
  }),
  defineOperation({
    ...nested.create,
    description:
      "Schedules the whole `amount_remaining` from `start_on` (today or later) by `instalment_amount` or `instalment_count` (exactly one): equal instalments, the last takes the remainder; monthly dates keep the start day or the month's last day. Allowed while the debt is `prepared`, `resumed`, `paused` or `defaulted` (409 otherwise); a second active plan is 409 `resource_conflict`. The debt moves to `paying`.",
    query: querySchema(show.expand),
    body: { name: 'PaymentPlanCreate', schema: PaymentPlanCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'resource_conflict', 'business_rule_violation'],
    events: ['payment_plan.created', 'debt.paying'],
    handler: (i) => show.one(i, createPlan(i.ctx.db, i.tenantId, i.params.debtId, i.body, actor(i))),
  }),
  defineOperation({
    ...top.create,
    operationId: 'createPaymentPlanForDebt',
    summary: 'Create a payment plan for the debt named in the body',
    description: "As `POST /debts/{debtId}/payment_plans`, with the debt as `debt_id` in the body (the public API's form, docs/api.md section 15).",
    query: querySchema(show.expand),
    body: { name: 'PaymentPlanCreateForDebt', schema: PaymentPlanCreateForDebt },
    response: { ...object, status: 201 },
    // The debt is named in the body, not the path: an unknown one is 404 `resource_missing`.
    errors: ['resource_missing', 'invalid_state_transition', 'resource_conflict', 'business_rule_violation'],
    events: ['payment_plan.created', 'debt.paying'],
    handler: ({ body: { debt_id: debtId, ...terms }, ...i }) => show.one({ ...i, body: terms }, createPlan(i.ctx.db, i.tenantId, debtId, terms, actor(i))),
  }),
  defineOperation({
    ...top.list,
    summary: "List the tenant's payment plans",
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<PaymentPlanRow, PaymentPlanObject>(i, { resource: paymentPlansResource, counter: () => ['payment_plans'], serialize: show.page(i) }),
  }),
  defineOperation({
    ...top.retrieve,
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, paymentPlansResource, show.row(i)),
  }),
  defineOperation({
    ...scheduleChange,
    path: '/payment_plans/{id}/reschedule',
    operationId: 'reschedulePaymentPlan',
    summary: 'Reschedule what is unpaid of a payment plan',
    description:
      'New `frequency`, `start_on` and `instalment_amount` or `instalment_count` for the unpaid amount; paid instalments stay. Only an active plan (409).',
    body: { name: 'PaymentPlanReschedule', schema: PaymentPlanReschedule },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    handler: (i) => show.one(i, reschedulePlan(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit)),
  }),
  defineOperation({
    ...scheduleChange,
    path: '/payment_plans/{id}/delay',
    operationId: 'delayPaymentPlan',
    summary: 'Delay the unpaid instalments of a payment plan',
    description: 'Shifts every unpaid instalment `days` (1 to 90) later. Only an active plan (409).',
    body: { name: 'PaymentPlanDelay', schema: PaymentPlanDelay },
    errors: ['invalid_state_transition'],
    handler: (i) => show.one(i, delayPlan(i.ctx.db, i.tenantId, i.params.id, i.body.days, actor(i).whodunnit)),
  }),
  defineOperation({
    ...scheduleChange,
    path: '/payment_plans/{id}/delay_next',
    operationId: 'delayNextPaymentPlanInstalment',
    summary: 'Give the customer time to pay: delay the next instalment',
    description:
      'Moves the next unpaid instalment, and those after it, `days` (1 to 14) later; the instalment gets `delayed: true`. Once per instalment: a second delay of the same instalment is 409 `resource_conflict`. Only an active plan (409).',
    body: { name: 'PaymentPlanDelayNext', schema: PaymentPlanDelayNext },
    errors: ['invalid_state_transition', 'resource_conflict'],
    handler: (i) => show.one(i, delayNextInstalment(i.ctx.db, i.tenantId, i.params.id, i.body.days, actor(i).whodunnit)),
  }),
  defineOperation({
    ...scheduleChange,
    path: '/payment_plans/{id}/change_day',
    operationId: 'changePaymentPlanDay',
    summary: 'Give the customer time to pay: change the day of future instalments',
    description:
      "The next unpaid instalment falls on `next_due_on` (today or later, before the date one period after its current one) and the later ones follow at the plan's frequency; amounts stay; the instalment gets `day_changed: true`. Once per instalment: a second change for the same instalment is 409 `resource_conflict`; a date out of range is 422 (param `next_due_on`). Only an active plan (409).",
    body: { name: 'PaymentPlanChangeDay', schema: PaymentPlanChangeDay },
    errors: ['invalid_state_transition', 'resource_conflict', 'business_rule_violation'],
    handler: (i) => show.one(i, changeInstalmentDay(i.ctx.db, i.tenantId, i.params.id, i.body.next_due_on, actor(i).whodunnit)),
  }),
  defineOperation({
    ...top.create,
    path: '/payment_plans/{id}/cancel',
    operationId: 'cancelPaymentPlan',
    summary: 'Cancel a payment plan',
    description: 'Cancels an active plan (409 otherwise); it keeps its history. A `paying` debt returns to `resumed`.',
    pathParams: { id: 'pp' },
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['payment_plan.canceled', 'debt.resumed'],
    handler: (i) => show.one(i, cancelPaymentPlan(i.ctx.db, i.tenantId, i.params.id, actor(i))),
  }),
];
