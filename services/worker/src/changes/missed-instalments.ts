/**
 * Missed instalments (docs/api.md section 9): an instalment still unpaid `grace_days` after its
 * `due_on` becomes `missed`, its plan `broken` (`payment_plan.broken`) and the debt `defaulted`
 * (`debt.defaulted`, whodunnit `system`, context naming the plan and instalment). Only plans of
 * `paying` debts are due: a paused or disputed debt keeps its plan until it is back to `paying`
 * (the lifecycle's `default` move starts from `paying` only).
 *
 * Lock order as in the API: the debt row first (claimed with SKIP LOCKED, so two workers never
 * take the same debt and neither waits on a debt an API request holds), then its active plan.
 */
import type { Knex } from '@dms/db';
import { lockActivePlan, writePlan } from '@dms/api/resources/payment-plans/active';
import { markMissed } from '@dms/api/resources/payment-plans/instalments';
import { requirePlanTransition } from '@dms/api/resources/payment-plans/states';
import { moveLockedDebt } from '@dms/api/resources/debts/moves';
import type { DebtRow } from '@dms/api/resources/debts/schemas';
import type { Clock } from './clock.js';
import { SYSTEM_ACTOR, type ChangeOutcome, type TimedChange } from './types.js';

/**
 * Locks the `paying` debt with the oldest overdue active plan that no other transaction holds.
 * `next_due_on + grace_days` is the expression of the partial index `payment_plans_overdue`.
 */
function claimOverdueDebt(trx: Knex.Transaction, today: string, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  const q = trx('debts')
    .select('debts.*')
    .join('payment_plans as p', (j) => j.on('p.debt_id', 'debts.id').andOn('p.tenant_id', 'debts.tenant_id'))
    .where({ 'p.status': 'active', 'debts.status': 'paying' })
    .whereRaw('p.next_due_on + p.grace_days < ?::date', [today])
    .orderByRaw('p.next_due_on + p.grace_days')
    .limit(1)
    .forUpdate('debts')
    .skipLocked();
  if (tenantIds.length) q.whereIn('debts.tenant_id', tenantIds);
  return q.first();
}

/** The change that breaks plans with a missed instalment and defaults their debts. */
export const missedInstalments: TimedChange = {
  name: 'instalment_missed',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimOverdueDebt(trx, clock.today, tenantIds);
    if (!debt) return { kind: 'none' };
    // The claim's join read the plan without a lock; decide on the locked, current plan.
    const plan = await lockActivePlan(trx, debt.tenant_id, debt.id);
    const { schedule, missed } = plan ? markMissed(plan.schedule, plan.grace_days, clock.today) : { schedule: [], missed: false };
    if (!plan || !missed) return { kind: 'skipped', debt: debt.id };
    const first = schedule.find((i, n) => i.status === 'missed' && plan.schedule[n]!.status !== 'missed')!;
    const context = `payment_plan.broken: ${plan.id}, instalment ${first.sequence} due ${first.due_on} unpaid after ${plan.grace_days} grace days`;
    await writePlan(trx, debt.tenant_id, plan, { schedule, status: requirePlanTransition(plan.status, 'break') }, 'payment_plan.broken');
    await moveLockedDebt(trx, debt.tenant_id, debt, 'default', { whodunnit: SYSTEM_ACTOR, context });
    return { kind: 'made', debt: debt.id, tenant: debt.tenant_id, context };
  },
};
