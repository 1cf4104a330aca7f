/**
 * Migration 107_plan_actors (docs/api.md section 9, "Payment plans") on data made with the old
 * schema: a database at 102 with a payment plan, then migrated to the latest schema. The old plan
 * is unchanged, its `whodunnit` and `source` null (its last change was not recorded); a new
 * change may name its actor, and a `source` other than `api`, `portal` or `worker` is refused.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old plans keep their rows with no actor; the actor columns take a client, a customer or the worker', async () => {
  const db = await scratch.at('102_sealed_statement_details');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'paying' });
  const schedule = [{ sequence: 1, due_on: '2026-01-01', amount: 100, amount_paid: 0, status: 'upcoming' }];
  await db('payment_plans').insert({
    id: 'pp_old',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    frequency: 'weekly',
    start_on: '2026-01-01',
    grace_days: 5,
    amount_total: 100,
    schedule: JSON.stringify(schedule),
    next_due_on: '2026-01-01',
  });
  const before = await db('payment_plans').where({ id: 'pp_old' }).first();

  await migrateLatest(db);

  expect(await db('payment_plans').where({ id: 'pp_old' }).first()).toEqual({ ...before, whodunnit: null, source: null });
  const write = (whodunnit: string, source: string) => db('payment_plans').where({ id: 'pp_old' }).update({ whodunnit, source });
  for (const [whodunnit, source] of [
    ['cli_1', 'api'],
    ['customer:cus_old', 'portal'],
    ['system', 'worker'],
  ] as const) {
    await write(whodunnit, source);
    expect(await db('payment_plans').where({ id: 'pp_old' }).first()).toMatchObject({ whodunnit, source });
  }
  await expect(write('cli_1', 'fax')).rejects.toThrow(/payment_plans_source/);
});
