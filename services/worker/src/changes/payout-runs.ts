/**
 * Payout runs (docs/api.md section 14): each check makes the missing payout accounts, then claims
 * one account whose next run is due against `tenant_now(tenant_id)` (`FOR UPDATE SKIP LOCKED`: once
 * with several workers) and runs it through the domain's `runOneDue`, set-based, in this
 * transaction with its `payout.created` event. A worker killed midway rolls it all back and the
 * account stays due.
 */
import type { Knex } from '@dms/db';
import { oldestDueAccount, runOneDue } from '@dms/domain/payouts';
import type { Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** The change that runs due payouts. */
export const payoutRuns: TimedChange = {
  name: 'payout_run',
  async applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome> {
    const outcome = await runOneDue(trx, tenantIds, clock.offsetSeconds);
    if (outcome.kind === 'none') return { kind: 'none' };
    if (!outcome.payout) return { kind: 'skipped', object: outcome.account };
    return { kind: 'made', object: outcome.payout.id, tenant: outcome.tenant, context: `payout of ${outcome.payout.amount} ${outcome.payout.currency}` };
  },
  oldestDue: (trx, clock, tenantIds) => oldestDueAccount(trx, tenantIds, clock.offsetSeconds),
  lagMetric: 'payout',
};
