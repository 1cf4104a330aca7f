/**
 * Timed pauses (docs/api.md section 9) and legal protections (section 12): a debt paused or
 * protected with `end_at` resumes at that time; the move
 * itself is the domain's (`endPause`: `resumed`, or `paying` while it has an active plan).
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource, endPause, type DebtRow } from '@dms/domain/debts';
import type { Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** Locks the paused debt whose pause ended longest ago that no other transaction holds (index `debts_pause_end`). */
function claimEndedPause(trx: Knex.Transaction, now: Date, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  return acrossTenants(trx, debtsResource, tenantIds)
    .whereIn('debts.status', ['paused', 'legal_protection'])
    .whereNotNull('debts.pause_end_at')
    .where('debts.pause_end_at', '<=', now)
    .orderBy('debts.pause_end_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .first();
}

/** The change that ends timed pauses. */
export const pauseEnds: TimedChange = {
  name: 'pause_ended',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimEndedPause(trx, clock.now, tenantIds);
    if (!debt) return { kind: 'none' };
    const context = await endPause(trx, debt.tenant_id, debt);
    return { kind: 'made', debt: debt.id, tenant: debt.tenant_id, context };
  },
};
