/**
 * Payment plans (docs/api.md section 9): create with a computed schedule, reschedule, delay and
 * cancel. Each write locks the debt, then the plan (the order every writer uses), so plan changes
 * racing each other or payments run one at a time; at most one active plan per debt is also a
 * unique index. A create moves the debt to `paying`, a cancel back to `resumed`.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../../db/outbox.js';
import { findOwned } from '../../db/scoped.js';
import { moveLockedDebt, type StatusNote } from '../debts/moves.js';
import { requireTransition } from '../debts/lifecycle.js';
import type { DebtRow } from '../debts/schemas.js';
import { cancelPlan, lockActivePlan, toPaymentPlan, writePlan } from './active.js';
import { delayUnpaid, freshInstalments, nextDueOn, rescheduleUnpaid } from './instalments.js';
import { buildSchedule, ScheduleError, type Frequency } from './schedule.js';
import { requirePlanTransition } from './states.js';
import type { PaymentPlan, PaymentPlanCreate, PaymentPlanReschedule, PaymentPlanRow } from './schemas.js';

/**
 * Checks the terms' shape and that `start_on` is not before the database's today.
 * @throws ApiError 400 `validation_failed` (both or neither instalment field), 422 (param `start_on`)
 */
async function checkTerms(trx: Knex.Transaction, terms: PaymentPlanReschedule): Promise<void> {
  const given = [terms.instalment_amount, terms.instalment_count].filter((v) => v !== undefined).length;
  if (given !== 1) {
    const message = 'give exactly one of instalment_amount or instalment_count';
    throw new ApiError('validation_failed', message, { param: 'instalment_amount', errors: [{ param: 'instalment_amount', message }] });
  }
  const { rows } = await trx.raw('SELECT ?::date < current_date AS past', [terms.start_on]);
  if (rows[0].past) throw new ApiError('business_rule_violation', 'start_on must not be in the past.', { param: 'start_on' });
}

/** Runs a schedule computation, turning its refusals into 422s naming the field. */
function scheduled<T>(compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (err instanceof ScheduleError) throw new ApiError('business_rule_violation', err.message, { param: err.param });
    throw err;
  }
}

const termsOf = (t: PaymentPlanReschedule) => ({
  frequency: t.frequency as Frequency,
  startOn: t.start_on,
  instalmentAmount: t.instalment_amount,
  instalmentCount: t.instalment_count,
});

/**
 * Creates an active plan for the debt's whole `amount_remaining` (`payment_plan.created`,
 * `debt.paying`).
 * @throws ApiError 404; 409 `invalid_state_transition` (debt not prepared/resumed/paused/defaulted),
 *   409 `resource_conflict` (an active plan exists); 422 `business_rule_violation` (param
 *   `start_on`, `instalment_count`, `instalment_amount`, `amount`)
 */
export async function createPlan(db: Knex, tenantId: string, debtId: string, input: PaymentPlanCreate, note: StatusNote): Promise<PaymentPlan> {
  try {
    return await db.transaction(async (trx) => {
      const debt = await findOwned<DebtRow>(trx, 'debts', tenantId, debtId, { forUpdate: true });
      if (await lockActivePlan(trx, tenantId, debt.id)) throw new ApiError('resource_conflict', 'The debt already has an active payment plan.');
      requireTransition(debt.status, 'plan');
      await checkTerms(trx, input);
      const schedule = freshInstalments(scheduled(() => buildSchedule({ amount: debt.amount_remaining, ...termsOf(input) })));
      const [row] = await trx('payment_plans')
        .insert({
          id: newId('pp'),
          tenant_id: tenantId,
          debt_id: debt.id,
          frequency: input.frequency,
          start_on: input.start_on,
          grace_days: input.grace_days ?? 5,
          amount_total: debt.amount_remaining,
          schedule: JSON.stringify(schedule),
          next_due_on: nextDueOn(schedule),
          metadata: JSON.stringify(input.metadata ?? {}),
        })
        .returning('*');
      const plan = toPaymentPlan(row as PaymentPlanRow);
      await recordEvent(trx, tenantId, 'payment_plan.created', plan);
      await moveLockedDebt(trx, tenantId, debt, 'plan', { ...note, context: `payment_plan.created: ${plan.id}` });
      return plan;
    });
  } catch (err) {
    // Two creates that raced past the check: the unique index lets one win.
    if ((err as { constraint?: string }).constraint === 'payment_plans_one_active')
      throw new ApiError('resource_conflict', 'The debt already has an active payment plan.');
    throw err;
  }
}

/** Finds the plan, locks its debt, then the plan itself (the shared lock order). */
async function lockPlan(trx: Knex.Transaction, tenantId: string, id: string): Promise<{ debt: DebtRow; plan: PaymentPlanRow }> {
  const found = await findOwned<PaymentPlanRow>(trx, 'payment_plans', tenantId, id);
  const debt = await findOwned<DebtRow>(trx, 'debts', tenantId, found.debt_id, { forUpdate: true });
  const plan = await findOwned<PaymentPlanRow>(trx, 'payment_plans', tenantId, id, { forUpdate: true });
  return { debt, plan };
}

/**
 * New terms for what is unpaid (`payment_plan.updated`); paid instalments stay.
 * @throws ApiError 404, 409 `invalid_state_transition` (plan not active), 422 as for create
 */
export function reschedulePlan(db: Knex, tenantId: string, id: string, input: PaymentPlanReschedule): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan } = await lockPlan(trx, tenantId, id);
    requirePlanTransition(plan.status, 'change');
    await checkTerms(trx, input);
    const schedule = scheduled(() => rescheduleUnpaid(plan.schedule, termsOf(input)));
    return writePlan(trx, tenantId, plan, { schedule, frequency: input.frequency, start_on: input.start_on }, 'payment_plan.updated');
  });
}

/**
 * Shifts every unpaid instalment `days` later (`payment_plan.updated`).
 * @throws ApiError 404, 409 `invalid_state_transition` (plan not active)
 */
export function delayPlan(db: Knex, tenantId: string, id: string, days: number): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan } = await lockPlan(trx, tenantId, id);
    requirePlanTransition(plan.status, 'change');
    return writePlan(trx, tenantId, plan, { schedule: delayUnpaid(plan.schedule, days) }, 'payment_plan.updated');
  });
}

/**
 * Cancels an active plan (`payment_plan.canceled`); a `paying` debt returns to `resumed`. The plan keeps its history.
 * @throws ApiError 404, 409 `invalid_state_transition` (plan not active)
 */
export function cancelPaymentPlan(db: Knex, tenantId: string, id: string, note: StatusNote): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { debt, plan } = await lockPlan(trx, tenantId, id);
    requirePlanTransition(plan.status, 'cancel');
    const canceled = await cancelPlan(trx, tenantId, plan);
    if (debt.status === 'paying') await moveLockedDebt(trx, tenantId, debt, 'cancel-plan', { ...note, context: `payment_plan.canceled: ${plan.id}` });
    return canceled;
  });
}
