/**
 * Timed pauses (docs/api.md section 9): a debt paused with `end_at` resumes at that time, to
 * `resumed` (`debt.resumed`), or to `paying` (`debt.paying`) while it has an active plan, as the
 * client's `resume` would; whodunnit `system`, context naming the pause's end.
 */
import type { Knex } from '@dms/db';
import { moveLockedDebt } from '@dms/api/resources/debts/moves';
import type { DebtRow } from '@dms/api/resources/debts/schemas';
import type { Clock } from './clock.js';
import { SYSTEM_ACTOR, type ChangeOutcome, type TimedChange } from './types.js';

/** Locks the paused debt whose pause ended longest ago that no other transaction holds (index `debts_pause_end`). */
function claimEndedPause(trx: Knex.Transaction, now: Date, tenantIds: readonly string[]): Promise<DebtRow | undefined> {
  const q = trx('debts')
    .where('status', 'paused')
    .whereNotNull('pause_end_at')
    .where('pause_end_at', '<=', now)
    .orderBy('pause_end_at')
    .limit(1)
    .forUpdate()
    .skipLocked();
  if (tenantIds.length) q.whereIn('tenant_id', tenantIds);
  return q.first();
}

/** The change that ends timed pauses. */
export const pauseEnds: TimedChange = {
  name: 'pause_ended',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const debt = await claimEndedPause(trx, clock.now, tenantIds);
    if (!debt) return { kind: 'none' };
    const endAt = (debt.pause_end_at as Date).toISOString();
    const context = `pause ended: end_at ${endAt}`;
    // moveLockedDebt locks the active plan after the debt and picks `paying` when there is one.
    await moveLockedDebt(trx, debt.tenant_id, debt, 'resume', { whodunnit: SYSTEM_ACTOR, context });
    return { kind: 'made', debt: debt.id, tenant: debt.tenant_id, context };
  },
};
