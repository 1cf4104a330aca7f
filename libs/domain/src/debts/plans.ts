/**
 * A debt's payment plans (docs/api.md section 9): create with a computed schedule, reschedule,
 * delay and cancel. Each write locks the debt, then the plan (the order every writer uses), so
 * plan changes racing each other or payments run one at a time; at most one active plan per debt
 * is also a unique index. A create moves the debt to `paying`, a cancel back to `resumed`. The
 * plan rows themselves are written by payment-plans/store.ts.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { requirePlanTransition } from '../payment-plans/states.js';
import { delayUnpaid, freshInstalments, markMissed, nextUnpaid, rescheduleUnpaid } from '../payment-plans/instalments.js';
import { buildSchedule, daysBetween, ScheduleError } from '../payment-plans/schedule.js';
import { cancelPlan, findPlan, insertPlan, lockActivePlan, writePlan, type PlanPaymentMethod } from '../payment-plans/store.js';
import type { PaymentPlan, PaymentPlanCreate, PaymentPlanReschedule, PaymentPlanRow } from '../payment-plans/schemas.js';
import { SYSTEM_ACTOR, endPause, lockDebt, moveLockedDebt, type StatusNote } from './moves.js';
import type { DebtRow } from './schemas.js';
import { ENGINE_STATUSES, requireTransition } from './states.js';

/**
 * Checks the terms' shape and that `start_on` is not before the tenant's today (its clock, SQL
 * `tenant_now`: a test tenant's may run ahead, docs/api.md section 15).
 * @throws ApiError 400 `validation_failed` (both or neither instalment field), 422 (param `start_on`)
 */
async function checkTerms(trx: Knex.Transaction, tenantId: string, terms: PaymentPlanReschedule): Promise<void> {
  const given = [terms.instalment_amount, terms.instalment_count].filter((v) => v !== undefined).length;
  if (given !== 1) {
    const message = 'give exactly one of instalment_amount or instalment_count';
    throw new ApiError('validation_failed', message, { param: 'instalment_amount', errors: [{ param: 'instalment_amount', message }] });
  }
  const { rows } = await trx.raw(`SELECT ?::date < (tenant_now(?) AT TIME ZONE 'UTC')::date AS past`, [terms.start_on, tenantId]);
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
  frequency: t.frequency,
  startOn: t.start_on,
  instalmentAmount: t.instalment_amount,
  instalmentCount: t.instalment_count,
});

/**
 * Creates an active plan for the debt's whole `amount_remaining` (`payment_plan.created`,
 * `debt.paying`); the portal passes the method saved at its checkout (`paymentMethod`), which the
 * worker charges on each due date. Runs in its own transaction, or as a savepoint of `db` when it is one.
 * @throws ApiError 404; 409 `invalid_state_transition` (debt not prepared/resumed/paused/defaulted),
 *   409 `resource_conflict` (an active plan exists); 422 `business_rule_violation` (param
 *   `start_on`, `instalment_count`, `instalment_amount`, `amount`)
 */
export async function createPlan(
  db: Knex,
  tenantId: string,
  debtId: string,
  input: PaymentPlanCreate,
  note: StatusNote,
  paymentMethod?: PlanPaymentMethod,
): Promise<PaymentPlan> {
  try {
    return await db.transaction(async (trx) => {
      const debt = await lockDebt(trx, tenantId, debtId);
      if (await lockActivePlan(trx, tenantId, debt.id)) throw new ApiError('resource_conflict', 'The debt already has an active payment plan.');
      requireTransition(debt.status, 'plan');
      await checkTerms(trx, tenantId, input);
      const move = await planMove(trx, debt, input.start_on);
      const schedule = freshInstalments(scheduled(() => buildSchedule({ amount: debt.amount_remaining, ...termsOf(input) })));
      const plan = await insertPlan(
        trx,
        tenantId,
        {
          debtId: debt.id,
          frequency: input.frequency,
          startOn: input.start_on,
          graceDays: input.grace_days ?? 5,
          amountTotal: debt.amount_remaining,
          schedule,
          metadata: input.metadata,
          paymentMethod,
        },
        note.whodunnit,
      );
      await moveLockedDebt(trx, tenantId, debt, move, { ...note, context: `payment_plan.created: ${plan.id}` });
      return plan;
    });
  } catch (err) {
    // Two creates that raced past the check: the unique index lets one win.
    if ((err as { constraint?: string }).constraint === 'payment_plans_one_active')
      throw new ApiError('resource_conflict', 'The debt already has an active payment plan.');
    throw err;
  }
}

/**
 * The move a new plan makes (docs/api.md section 12): on a debt the collection engine is working
 * (the customer's answer to its communications), a plan whose first instalment is not yet due by
 * the tenant's clock is `arranging` (`plan-proposed`); otherwise the debt is `paying`.
 */
async function planMove(trx: Knex.Transaction, debt: DebtRow, startOn: string): Promise<'plan' | 'plan-proposed'> {
  if (!ENGINE_STATUSES.includes(debt.status)) return 'plan';
  const { rows } = await trx.raw("SELECT ?::date > (tenant_now(?) AT TIME ZONE 'UTC')::date AS later", [startOn, debt.tenant_id]);
  return rows[0].later ? 'plan-proposed' : 'plan';
}

/**
 * The worker's start of an `arranging` debt's plan (docs/api.md section 12): once the first
 * instalment of its active plan is due (`today`, the tenant's), the locked debt moves to
 * `paying` (`whodunnit: system`).
 * @returns the context of the change, or undefined when not yet due or no plan is active
 */
export async function startPlanIfDue(trx: Knex.Transaction, tenantId: string, debt: DebtRow, today: string): Promise<string | undefined> {
  const plan = await lockActivePlan(trx, tenantId, debt.id);
  if (!plan || plan.start_on > today) return undefined;
  const context = `payment_plan first instalment due: ${plan.id} on ${plan.start_on}`;
  await moveLockedDebt(trx, tenantId, debt, 'plan-due', { whodunnit: SYSTEM_ACTOR, context });
  return context;
}

/** Finds the plan, locks its debt, then the plan itself (the shared lock order). */
export async function lockPlan(trx: Knex.Transaction, tenantId: string, id: string): Promise<{ debt: DebtRow; plan: PaymentPlanRow }> {
  const found = await findPlan(trx, tenantId, id);
  const debt = await lockDebt(trx, tenantId, found.debt_id);
  const plan = await findPlan(trx, tenantId, id, true);
  return { debt, plan };
}

/**
 * New terms for what is unpaid (`payment_plan.updated`); paid instalments stay.
 * @param whodunnit the client id or `operator:<client id>`
 * @throws ApiError 404, 409 `invalid_state_transition` (plan not active), 422 as for create
 */
export function reschedulePlan(db: Knex, tenantId: string, id: string, input: PaymentPlanReschedule, whodunnit: string): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan } = await lockPlan(trx, tenantId, id);
    requirePlanTransition(plan.status, 'change');
    await checkTerms(trx, tenantId, input);
    const schedule = scheduled(() => rescheduleUnpaid(plan.schedule, termsOf(input)));
    return writePlan(trx, tenantId, plan, 'change', { schedule, frequency: input.frequency, start_on: input.start_on }, 'payment_plan.updated', whodunnit);
  });
}

/**
 * Shifts every unpaid instalment `days` later (`payment_plan.updated`).
 * @param whodunnit the client id or `operator:<client id>`
 * @throws ApiError 404, 409 `invalid_state_transition` (plan not active)
 */
export function delayPlan(db: Knex, tenantId: string, id: string, days: number, whodunnit: string): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const { plan } = await lockPlan(trx, tenantId, id);
    requirePlanTransition(plan.status, 'change');
    return writePlan(trx, tenantId, plan, 'change', { schedule: delayUnpaid(plan.schedule, days) }, 'payment_plan.updated', whodunnit);
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
    const canceled = await cancelPlan(trx, tenantId, plan, note.whodunnit);
    if (debt.status === 'paying') await moveLockedDebt(trx, tenantId, debt, 'cancel-plan', { ...note, context: `payment_plan.canceled: ${plan.id}` });
    return canceled;
  });
}

/**
 * The worker's check of a locked `paying` debt on `today` (docs/api.md section 9): when an
 * instalment of its active plan is still unpaid `grace_days` after its `due_on`, the instalment
 * becomes `missed`, the plan `broken` (`payment_plan.broken`) and the debt `defaulted`
 * (`debt.defaulted`, whodunnit `system`), with a context naming the plan and the instalment.
 * @param today `YYYY-MM-DD` of the worker's clock
 * @returns the context of the change made, or undefined when nothing was missed (a payment came in
 *   since the debt was claimed)
 */
export async function breakPlanIfMissed(trx: Knex.Transaction, tenantId: string, debt: DebtRow, today: string): Promise<string | undefined> {
  // The claim read the plan without a lock; decide on the locked, current plan.
  const plan = await lockActivePlan(trx, tenantId, debt.id);
  if (!plan) return undefined;
  const { schedule, missed } = markMissed(plan.schedule, plan.grace_days, today);
  if (!missed) return undefined;
  const first = schedule.find((i, n) => i.status === 'missed' && plan.schedule[n]!.status !== 'missed')!;
  const context = `payment_plan.broken: ${plan.id}, instalment ${first.sequence} due ${first.due_on} unpaid after ${plan.grace_days} grace days`;
  await writePlan(trx, tenantId, plan, 'break', { schedule }, 'payment_plan.broken', SYSTEM_ACTOR);
  await moveLockedDebt(trx, tenantId, debt, 'default', { whodunnit: SYSTEM_ACTOR, context });
  return context;
}

/**
 * The end of a breathing space (docs/api.md section 19): what fell due while the debt was under
 * `legal_protection` is not missed. When the oldest unpaid instalment of the debt's active plan is
 * due before `today`, every unpaid instalment moves that many days later, so the oldest is due
 * `today` and its grace days start again (`payment_plan.updated`); amounts stay. Call it with the
 * debt locked (the plan is locked after it, the order every writer uses).
 * @param today `YYYY-MM-DD` by the tenant's clock
 * @returns the days the schedule moved (0: nothing fell due, or no active plan)
 */
async function catchUpAfterProtection(trx: Knex.Transaction, tenantId: string, debtId: string, today: string): Promise<number> {
  const plan = await lockActivePlan(trx, tenantId, debtId);
  const next = plan && nextUnpaid(plan.schedule);
  const days = next ? daysBetween(next.due_on, today) : 0;
  if (days <= 0) return 0;
  await writePlan(trx, tenantId, plan!, 'change', { schedule: delayUnpaid(plan!.schedule, days) }, 'payment_plan.updated', SYSTEM_ACTOR);
  return days;
}

/**
 * The worker's end of a locked debt's timed status (docs/api.md sections 9, 12 and 18): a legal
 * protection's plan first catches up (`catchUpAfterProtection`), then the debt resumes (`endPause`).
 * A pause or a vulnerability's contact pause keeps its plan's dates: the customer could pay during it.
 * @param today `YYYY-MM-DD` by the tenant's clock
 * @returns the context of the change
 */
export async function endTimedStatus(trx: Knex.Transaction, tenantId: string, debt: DebtRow, today: string): Promise<string> {
  const moved = debt.status === 'legal_protection' ? await catchUpAfterProtection(trx, tenantId, debt.id, today) : 0;
  return endPause(trx, tenantId, debt, moved);
}
