/**
 * Plans that start (docs/api.md section 12): an `arranging` debt whose active plan's first
 * instalment is due by its tenant's clock (plus the worker's offset) moves to `paying`; the rule
 * is the domain's (`startPlanIfDue`).
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource, startPlanIfDue, type DebtRow } from '@dms/domain/debts';
import type { Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** Locks an `arranging` debt whose active plan starts by its tenant's today, that no other transaction holds. */
async function claimStartingPlan(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<{ debt: DebtRow; today: string } | undefined> {
  const row = (await acrossTenants(trx, debtsResource, tenantIds)
    .select(
      'debts.*',
      trx.raw(`((tenant_now(debts.tenant_id) + make_interval(secs => ?)) AT TIME ZONE 'UTC')::date::text AS engine_today`, [clock.offsetSeconds]),
    )
    .join('payment_plans as p', (j) => j.on('p.debt_id', 'debts.id').andOn('p.tenant_id', 'debts.tenant_id'))
    .where({ 'p.status': 'active', 'debts.status': 'arranging' })
    .whereRaw(`p.start_on <= ((tenant_now(debts.tenant_id) + make_interval(secs => ?)) AT TIME ZONE 'UTC')::date`, [clock.offsetSeconds])
    .limit(1)
    .forUpdate('debts')
    .skipLocked()
    .first()) as (DebtRow & { engine_today: string }) | undefined;
  return row ? { debt: row, today: row.engine_today } : undefined;
}

/** The change that starts the plans of `arranging` debts. */
export const planStarts: TimedChange = {
  name: 'plan_started',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const claimed = await claimStartingPlan(trx, clock, tenantIds);
    if (!claimed) return { kind: 'none' };
    const context = await startPlanIfDue(trx, claimed.debt.tenant_id, claimed.debt, claimed.today);
    if (context === undefined) return { kind: 'skipped', object: claimed.debt.id };
    return { kind: 'made', object: claimed.debt.id, tenant: claimed.debt.tenant_id, context };
  },
};
