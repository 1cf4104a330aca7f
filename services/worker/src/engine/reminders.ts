/**
 * The reminder of a pay-later promise (docs/api.md section 18 "Pay later", section 13), a change
 * of the collection engine, `promise_reminded`: debts being worked, with something left to pay,
 * whose active promise not yet reminded has its day before by their tenant's clock plus the worker's
 * offset (the calendar the charge on the day uses: `tenantDay`), and whose reminder is not held
 * back (`reminder_next_at`), are claimed one at a time with `FOR UPDATE SKIP LOCKED`; the domain
 * (`remindPromise`) applies the contact rules and makes the communication in that transaction, and
 * the worker hands it over after the commit (send.ts). A worker killed before the commit leaves
 * nothing; one killed after it leaves the communication `queued` for `send_retried` once its lease
 * ends: never sent twice, never lost.
 */
import type { Knex } from '@dms/db';
import { WORKED, debtsResource, type DebtRow } from '@dms/domain/debts';
import { acrossTenants } from '@dms/domain/kernel';
import { remindPromise } from '@dms/domain/portal';
import { tenantDay, tenantMoment, type Clock } from '../changes/clock.js';
import type { ChangeOutcome, TimedChange } from '../changes/types.js';
import { claimQuery, oldestDueOf, type DueQuery } from './due.js';
import { handOverAll, type EngineDeps } from './send.js';

/** SQL of the tenant's moment (plus the worker's offset) and of its calendar day (each binds the offset). */
const NOW = tenantMoment('debts.tenant_id');
const TODAY = tenantDay('debts.tenant_id');
/** SQL of when a promise's reminder became due: the start (UTC) of its day before, or when it was held back until. */
const DUE_AT = `greatest((pr.pay_on - 1)::timestamp AT TIME ZONE 'UTC', coalesce(pr.reminder_next_at, '-infinity'))`;

/** Debts whose active promise's reminder is due (see the module doc). */
export function dueReminders(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[]): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .join('payment_promises as pr', (j) => j.on('pr.debt_id', 'debts.id').andOn('pr.tenant_id', 'debts.tenant_id'))
    .where({ 'pr.status': 'active' })
    .whereNull('pr.reminder_communication_id')
    .whereIn('debts.status', WORKED)
    .where('debts.amount_remaining', '>', 0)
    .whereRaw('pr.pay_on - 1 <= ?::date', [clock.horizonDay])
    .whereRaw(`pr.pay_on - 1 <= ${TODAY} AND pr.pay_on > ${TODAY}`, [clock.offsetSeconds, clock.offsetSeconds])
    .whereRaw(`(pr.reminder_next_at IS NULL OR pr.reminder_next_at <= ${NOW})`, [clock.offsetSeconds]);
  return { query, order: 'pr.pay_on', waitSql: `extract(epoch FROM ${NOW} - ${DUE_AT})`, waitBindings: [clock.offsetSeconds], firstWaitedLongest: false };
}

/** The `promise_reminded` change, sending through the engine's channels. */
export function promiseReminders(deps: EngineDeps): TimedChange {
  return {
    name: 'promise_reminded',
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const debt = (await claimQuery(trx, clock, dueReminders(trx, clock, tenantIds), 1).first()) as (DebtRow & { engine_now: Date }) | undefined;
      if (!debt) return { kind: 'none' };
      const now = new Date(debt.engine_now);
      const outcome = await remindPromise(trx, debt, now, now.toISOString().slice(0, 10), deps.links, deps.leaseSeconds);
      const made = { kind: 'made' as const, object: debt.id, tenant: debt.tenant_id, context: outcome.context };
      if (outcome.kind !== 'send') return made;
      const sends = [{ communication: outcome.communication, to: outcome.to }];
      return { ...made, afterCommit: () => handOverAll(deps, sends) };
    },
    oldestDue: (trx, clock, tenantIds) => oldestDueOf([dueReminders(trx, clock, tenantIds)], clock),
  };
}
