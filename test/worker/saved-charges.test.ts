/**
 * The worker's charges of saved payment methods (docs/api.md section 18 "The worker's charges"),
 * as two real worker processes over the real database, their clock run a day forward: a plan's
 * first instalment charged with the card saved as 4242 → a succeeded payment paid into the plan;
 * with the card saved as 0341 → a failed payment, then the missed-instalment rules break the plan
 * and default the debt; a cancelled authority is never charged; a pay-later promise charged on its
 * date → kept and the debt paid. Each charge is made exactly once, with two workers at once.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { cancelAuthority, insertPromise } from '@dms/domain/portal';
import { createPlan as apiCreatePlan } from '@dms/domain/debts';
import { localSavedMethod } from '@dms/payments';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { inDays, readyDebt, startWorker } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
const started: RunningService[] = [];
const ONE_DAY = 86_400;

afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

let t: Tenant;
let parties: Parties;
beforeAll(async () => {
  t = await signedInTenant();
  parties = await seedParties(t.api);
});

/** A `paying` debt of 100.00 with a weekly two-instalment plan from today (grace 0) paid by the card `digits`. */
async function planPaidBy(digits: string): Promise<{ debtId: string; planId: string }> {
  const debtId = await readyDebt(t.api, parties);
  const method = { provider: 'local', ...localSavedMethod(digits) };
  const plan = await apiCreatePlan(
    testDb(),
    t.tenant.tenantId,
    debtId,
    { frequency: 'weekly', instalment_count: 2, start_on: inDays(0), grace_days: 0 },
    { whodunnit: `customer:${parties.customerId}` },
    method,
  );
  return { debtId, planId: plan.id };
}

const paymentsOf = (debtId: string) => testDb()('payments').where({ debt_id: debtId }).orderBy('seq');

test('two workers: each due instalment and promise charged once; succeeded counted, failed left to the missed rules, a cancelled authority untouched', async () => {
  const good = await Promise.all([planPaidBy('4242424242424242'), planPaidBy('4242424242424242')]);
  const bad = await planPaidBy('4000000000000341');
  const cancelled = await planPaidBy('4242424242424242');
  await cancelAuthority(testDb(), t.tenant.tenantId, parties.customerId, cancelled.debtId);
  const promised = await readyDebt(t.api, parties);
  const promise = await testDb().transaction((trx) =>
    insertPromise(trx, {
      tenantId: t.tenant.tenantId,
      debtId: promised,
      customerId: parties.customerId,
      amount: 10000,
      currency: 'GBP',
      payOn: inDays(1),
      method: { provider: 'local', ...localSavedMethod('4242424242424242') },
    }),
  );

  const workers = await Promise.all([startWorker([t.tenant.tenantId], ONE_DAY), startWorker([t.tenant.tenantId], ONE_DAY)]);
  started.push(...workers);
  await eventually(
    async () => {
      const plans = await testDb()('payment_plans')
        .whereIn('id', [...good.map((g) => g.planId), bad.planId])
        .select('status', 'amount_paid');
      const promiseRow = await testDb()('payment_promises').where({ id: promise.id }).first();
      return (
        plans.filter((p: { amount_paid: number }) => p.amount_paid === 5000).length === 2 &&
        plans.some((p: { status: string }) => p.status === 'broken') &&
        promiseRow.status !== 'active'
      );
    },
    'all due charges made',
    20_000,
  );
  // A few more checks by both workers charge nothing again.
  await new Promise((r) => setTimeout(r, 1500));

  for (const { debtId, planId } of good) {
    const payments = await paymentsOf(debtId);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ status: 'succeeded', amount: 5000, payment_provider: 'local', payment_plan_id: planId, provider_managed: true });
    expect(payments[0].transaction_ref).toMatch(/^lch_/);
    const plan = (await t.api.get(`/payment_plans/${planId}`).expect(200)).body;
    expect(plan.schedule.map((i: { status: string }) => i.status)).toEqual(['paid', 'upcoming']);
    expect(await testDb()('instalment_charges').where({ payment_plan_id: planId })).toHaveLength(1);
    expect(await eventTypesFor(t.tenant.tenantId, payments[0].id)).toContain('payment.created');
  }
  // 0341: saved, then declined: a failed payment, the instalment unpaid, then missed → broken, defaulted.
  const failed = await paymentsOf(bad.debtId);
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ status: 'failed', amount: 5000 });
  expect(await eventTypesFor(t.tenant.tenantId, failed[0].id)).toEqual(['payment.created', 'payment.failed']);
  expect((await testDb()('payment_plans').where({ id: bad.planId }).first()).status).toBe('broken');
  expect((await testDb()('debts').where({ id: bad.debtId }).first()).status).toBe('defaulted');
  // The cancelled authority: nothing charged (its instalment is then missed by the usual rules).
  expect(await paymentsOf(cancelled.debtId)).toEqual([]);
  expect(await testDb()('instalment_charges').where({ payment_plan_id: cancelled.planId })).toEqual([]);
  // The promise: charged once on its date, kept, the debt paid.
  const kept = await testDb()('payment_promises').where({ id: promise.id }).first();
  const promisePayments = await paymentsOf(promised);
  expect(promisePayments).toHaveLength(1);
  expect(kept).toMatchObject({ status: 'kept', payment_id: promisePayments[0].id });
  expect(promisePayments[0]).toMatchObject({ status: 'succeeded', amount: 10000, metadata: { source: 'portal', promise: promise.id }, provider_managed: true });
  expect((await testDb()('debts').where({ id: promised }).first()).status).toBe('paid');
});
