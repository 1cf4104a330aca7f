/**
 * Missed instalments (docs/api.md section 9): an instalment still unpaid `grace_days` after its
 * `due_on` (by its tenant's clock, section 15) becomes `missed`, its plan `broken` and the debt `defaulted`; the rule itself is the
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
import { tenantDay, tenantToday, type Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** `paying` debts joined with their active plan (`p`) whose instalment is overdue by their tenant's clock. */
function overduePlans(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]) {
  return acrossTenants(trx, debtsResource, tenantIds)
    .join('payment_plans as p', (j) => j.on('p.debt_id', 'debts.id').andOn('p.tenant_id', 'debts.tenant_id'))
    .where({ 'p.status': 'active', 'debts.status': 'paying' })
    .whereRaw('p.next_due_on + p.grace_days < ?::date', [clock.horizonDay])
    .whereRaw(`p.next_due_on + p.grace_days < ${tenantDay('debts.tenant_id')}`, [clock.offsetSeconds]);
}

/**
 * Locks the `paying` debt with the oldest plan overdue by its tenant's clock that no other
 * transaction holds. `next_due_on + grace_days` is the expression of the partial index
 * `payment_plans_overdue`, bounded by the clock furthest ahead.
 */
function claimOverdueDebt(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  return overduePlans(trx, clock, tenantIds).select('debts.*').orderByRaw('p.next_due_on + p.grace_days').limit(1).forUpdate('debts').skipLocked().first();
}

/** The change that breaks plans with a missed instalment and defaults their debts. */
export const missedInstalments: TimedChange = {
  name: 'instalment_missed',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimOverdueDebt(trx, clock, tenantIds);
    if (!debt) return { kind: 'none' };
    const context = await breakPlanIfMissed(trx, debt.tenant_id, debt, await tenantToday(trx, debt.tenant_id, clock));
    if (context === undefined) return { kind: 'skipped', object: debt.id };
    return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context };
  },
  async oldestDue(trx, clock, tenantIds) {
    // Missed from the start (UTC) of the day after `next_due_on + grace_days`.
    const row = (await overduePlans(trx, clock, tenantIds).select(trx.raw(`min(p.next_due_on + p.grace_days + 1)::text AS due`)).first()) as
      { due: string | null } | undefined;
    return row?.due ? new Date(`${row.due}T00:00:00Z`) : null;
  },
};
