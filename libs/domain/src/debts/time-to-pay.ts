/**
 * The customer's time to pay on an active payment plan (docs/api.md section 18): delay the next
 * unpaid instalment by up to 14 days, or change the day of the instalments from the next one on.
 * Each is offered once per instalment (the instalment keeps `delayed` / `day_changed`; a second
 * one for the same instalment is 409 `resource_conflict`). The schedule is rewritten in one
 * transaction with `payment_plan.updated`, under the debt's then the plan's lock (plans.ts); the
 * plan's `next_due_on` follows, so the worker's missed-instalment rule uses the new dates.
 * The actor is the tenant's client id or `customer:<id>` (who may only change their own plans).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { delayUnpaid, nextUnpaid, redateUnpaid, type Instalment } from '../payment-plans/instalments.js';
import { dueOn } from '../payment-plans/schedule.js';
import { requirePlanTransition } from '../payment-plans/states.js';
import { writePlan } from '../payment-plans/store.js';
import type { PaymentPlan, PaymentPlanRow } from '../payment-plans/schemas.js';
import { lockPlan } from './plans.js';

/** Most days the customer may delay one instalment. */
export const MAX_DELAY_DAYS = 14;

/**
 * Locks the actor's active plan and its next unpaid instalment, refusing a second use of `mark` on it.
 * @throws ApiError 404 `resource_missing` (unknown, another tenant's or another customer's plan),
 *   409 `invalid_state_transition` (plan not active), 409 `resource_conflict` (already used)
 */
async function lockForTimeToPay(
  trx: Knex.Transaction,
  tenantId: string,
  id: string,
  actor: string,
  mark: 'delayed' | 'day_changed',
): Promise<{ plan: PaymentPlanRow; next: Instalment }> {
  const { debt, plan } = await lockPlan(trx, tenantId, id);
  if (actor.startsWith('customer:') && debt.customer_id !== actor.slice('customer:'.length))
    throw new ApiError('resource_missing', `No such payment_plan: '${id}'`);
  requirePlanTransition(plan.status, 'change');
  const next = nextUnpaid(plan.schedule)!;
  if (next[mark]) {
    const what = mark === 'delayed' ? 'delayed' : 'had its day changed';
    throw new ApiError('resource_conflict', `Instalment ${next.sequence} (due ${next.due_on}) has already ${what}; this is offered once per instalment.`);
  }
  return { plan, next };
}

/**
 * Delays the next unpaid instalment, and those after it, by `days` (1 to 14; the schema bounds it).
 * @throws as lockForTimeToPay
 */
export function delayNextInstalment(db: Knex, tenantId: string, id: string, days: number, actor: string): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan } = await lockForTimeToPay(trx, tenantId, id, actor, 'delayed');
    return writePlan(trx, tenantId, plan, 'change', { schedule: delayUnpaid(plan.schedule, days, 'delayed') }, 'payment_plan.updated', actor);
  });
}

/**
 * Moves the next unpaid instalment to `nextDueOn` and the later ones to follow it at the plan's frequency.
 * @throws as lockForTimeToPay; 422 `business_rule_violation` (param `next_due_on`) for a date
 *   before the tenant's today, the current one, or one period or more after the current one
 */
export function changeInstalmentDay(db: Knex, tenantId: string, id: string, nextDueOn: string, actor: string): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan, next } = await lockForTimeToPay(trx, tenantId, id, actor, 'day_changed');
    const { rows } = await trx.raw(`SELECT ?::date < (tenant_now(?) AT TIME ZONE 'UTC')::date AS past`, [nextDueOn, tenantId]);
    const limit = dueOn(next.due_on, plan.frequency, 1);
    if (rows[0].past || nextDueOn === next.due_on || nextDueOn >= limit) {
      const message = `next_due_on must be today or later, differ from ${next.due_on} and fall before ${limit}.`;
      throw new ApiError('business_rule_violation', message, { param: 'next_due_on' });
    }
    const schedule = redateUnpaid(plan.schedule, plan.frequency, nextDueOn, 'day_changed');
    return writePlan(trx, tenantId, plan, 'change', { schedule }, 'payment_plan.updated', actor);
  });
}
