/**
 * Missed instalments (docs/api.md section 9): an instalment still unpaid `grace_days` after its
 * `due_on` becomes `missed`, its plan `broken` and the debt `defaulted`; the rule itself is the
 * domain's (`breakPlanIfMissed`). Only plans of `paying` debts are due: a paused or disputed debt
 * keeps its plan until it is back to `paying` (the lifecycle's `default` move starts from `paying`
 * only).
 *
 * Lock order as in the API: the debt row first (claimed with SKIP LOCKED, so two workers never
 * take the same debt and neither waits on a debt an API request holds), then its active plan.
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { breakPlanIfMissed, debtsResource, type DebtRow } from '@dms/domain/debts';
import type { Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** `paying` debts joined with their active plan (`p`) whose instalment is overdue on `today`. */
function overduePlans(trx: Knex.Transaction, today: string, tenantIds: readonly string[]) {
  return acrossTenants(trx, debtsResource, tenantIds)
    .join('payment_plans as p', (j) => j.on('p.debt_id', 'debts.id').andOn('p.tenant_id', 'debts.tenant_id'))
    .where({ 'p.status': 'active', 'debts.status': 'paying' })
    .whereRaw('p.next_due_on + p.grace_days < ?::date', [today]);
}

/**
 * Locks the `paying` debt with the oldest overdue active plan that no other transaction holds.
 * `next_due_on + grace_days` is the expression of the partial index `payment_plans_overdue`.
 */
function claimOverdueDebt(trx: Knex.Transaction, today: string, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  return overduePlans(trx, today, tenantIds).select('debts.*').orderByRaw('p.next_due_on + p.grace_days').limit(1).forUpdate('debts').skipLocked().first();
}

/** The change that breaks plans with a missed instalment and defaults their debts. */
export const missedInstalments: TimedChange = {
  name: 'instalment_missed',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimOverdueDebt(trx, clock.today, tenantIds);
    if (!debt) return { kind: 'none' };
    const context = await breakPlanIfMissed(trx, debt.tenant_id, debt, clock.today);
    if (context === undefined) return { kind: 'skipped', debt: debt.id };
    return { kind: 'made', debt: debt.id, tenant: debt.tenant_id, context };
  },
  async oldestDue(trx, clock, tenantIds) {
    // Missed from the start (UTC) of the day after `next_due_on + grace_days`.
    const row = (await overduePlans(trx, clock.today, tenantIds).select(trx.raw(`min(p.next_due_on + p.grace_days + 1)::text AS due`)).first()) as
      { due: string | null } | undefined;
    return row?.due ? new Date(`${row.due}T00:00:00Z`) : null;
  },
};
