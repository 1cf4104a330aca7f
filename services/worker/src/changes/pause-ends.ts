/**
 * Timed pauses (docs/api.md section 9), legal protections (section 12) and the 30-day contact
 * pause of a vulnerability disclosure (section 18): a debt paused, protected or awaiting
 * follow-up with `end_at` resumes at that time (by its tenant's clock, section 15); the move
 * itself is the domain's (`endTimedStatus`: `resumed`, or `paying` while it has an active plan;
 * after a breathing space, the plan's instalments that fell due during it move so none is missed).
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource, endTimedStatus, type DebtRow } from '@dms/domain/debts';
import { tenantMoment, tenantToday, type Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** Statuses a debt may hold until `end_at` (`pause_end_at`): the partial index `debts_pause_end` covers them. */
const TIMED_STATUSES = ['paused', 'legal_protection', 'follow_up_required'];

/** Paused debts whose pause has ended by their tenant's clock (bounded by the clock furthest ahead). */
function endedPauses(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]) {
  return acrossTenants(trx, debtsResource, tenantIds)
    .whereIn('debts.status', TIMED_STATUSES)
    .whereNotNull('debts.pause_end_at')
    .where('debts.pause_end_at', '<=', clock.horizon)
    .whereRaw(`debts.pause_end_at <= ${tenantMoment('debts.tenant_id')}`, [clock.offsetSeconds]);
}

/** Locks the paused debt whose pause ended longest ago that no other transaction holds (index `debts_pause_end`). */
function claimEndedPause(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  return endedPauses(trx, clock, tenantIds).orderBy('debts.pause_end_at').limit(1).forUpdate().skipLocked().first();
}

/** The change that ends timed pauses. */
export const pauseEnds: TimedChange = {
  name: 'pause_ended',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimEndedPause(trx, clock, tenantIds);
    if (!debt) return { kind: 'none' };
    const context = await endTimedStatus(trx, debt.tenant_id, debt, await tenantToday(trx, debt.tenant_id, clock));
    return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context };
  },
  async oldestDue(trx, clock, tenantIds) {
    const row = (await endedPauses(trx, clock, tenantIds).min('debts.pause_end_at as due').first()) as { due: Date | null } | undefined;
    return row?.due ? new Date(row.due) : null;
  },
};
