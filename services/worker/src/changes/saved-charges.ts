/**
 * Charges of saved payment methods (docs/api.md section 18 "The worker's charges"): on an
 * instalment's due date (its tenant's clock plus the worker's offset) the oldest unpaid instalment
 * of an active plan (of a `paying` or `arranging` debt) with a saved method whose authority stands,
 * and on a pay-later promise's date the promise of a debt being worked (a held or disputed one waits), through the provider that saved the method (`chargeSaved`); the domain records the
 * payment (charges.ts). Lock order as everywhere: the debt row first, claimed with SKIP LOCKED so
 * two workers never charge one debt at once; the instalment's charge row is unique, so a charge is
 * made once.
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { WORKED, debtsResource, type DebtRow } from '@dms/domain/debts';
import { chargeDueInstalment, chargeDuePromise, type ChargeSaved } from '@dms/domain/portal';
import { tenantDay, tenantToday, type Clock } from './clock.js';
import type { ChangeOutcome, TimedChange } from './types.js';

/** Debts whose active plan with a standing authority has an uncharged instalment due by their tenant's clock. */
function duePlans(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]) {
  return acrossTenants(trx, debtsResource, tenantIds)
    .join('payment_plans as p', (j) => j.on('p.debt_id', 'debts.id').andOn('p.tenant_id', 'debts.tenant_id'))
    .where({ 'p.status': 'active' })
    .whereIn('debts.status', ['paying', 'arranging'])
    .whereNotNull('p.payment_method_reference')
    .whereNull('p.authority_canceled_at')
    .whereRaw('p.next_due_on <= ?::date', [clock.horizonDay])
    .whereRaw(`p.next_due_on <= ${tenantDay('debts.tenant_id')}`, [clock.offsetSeconds])
    .whereNotExists((q) => q.select(trx.raw('1')).from('instalment_charges as c').whereRaw('c.payment_plan_id = p.id AND c.due_on = p.next_due_on'));
}

/** Debts with an active promise due by their tenant's clock. */
function duePromises(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]) {
  return acrossTenants(trx, debtsResource, tenantIds)
    .join('payment_promises as pr', (j) => j.on('pr.debt_id', 'debts.id').andOn('pr.tenant_id', 'debts.tenant_id'))
    .where({ 'pr.status': 'active' })
    .whereIn('debts.status', WORKED)
    .whereRaw('pr.pay_on <= ?::date', [clock.horizonDay])
    .whereRaw(`pr.pay_on <= ${tenantDay('debts.tenant_id')}`, [clock.offsetSeconds]);
}

/** One charge change over `due`, charging with `charge`. */
function chargeChange(
  name: 'instalment_charged' | 'promise_charged',
  due: typeof duePlans,
  apply: typeof chargeDueInstalment,
  dueColumn: string,
  charge: ChargeSaved,
): TimedChange {
  return {
    name,
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const debt = (await due(trx, clock, tenantIds).select('debts.*').orderBy(dueColumn).limit(1).forUpdate('debts').skipLocked().first()) as
        DebtRow | undefined;
      if (!debt) return { kind: 'none' };
      const context = await apply(trx, debt, await tenantToday(trx, debt.tenant_id, clock), charge);
      if (context === undefined) return { kind: 'skipped', object: debt.id };
      return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context };
    },
  };
}

/** The charge changes, charging through `charge` (the worker's providers by name). */
export function savedCharges(charge: ChargeSaved): TimedChange[] {
  return [
    chargeChange('instalment_charged', duePlans, chargeDueInstalment, 'p.next_due_on', charge),
    chargeChange('promise_charged', duePromises, chargeDuePromise, 'pr.pay_on', charge),
  ];
}
