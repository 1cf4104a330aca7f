/**
 * Migrations 095_payment_setups, 096_plan_payment_methods and 097_payment_promises (docs/api.md
 * section 18 "Plans with a saved card", "Pay later") on data made with the old schema: a database
 * at 092 with a payment plan, then migrated to the latest schema. The old plan is unchanged, with
 * no saved method (so the worker never charges it); an instalment is charged once per date (the
 * unique key); a debt has one active promise at most; the setup and promise CHECKs hold.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, insertOldPlan, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old plans keep their rows and have no saved method; the new tables keep their keys and checks', async () => {
  const db = await scratch.at('092_portal_communications');
  await insertOldParties(db);
  const before = await insertOldPlan(db);

  await migrateLatest(db);

  const after = await db('payment_plans').where({ id: 'pp_old' }).first();
  expect(after).toMatchObject({
    ...before,
    payment_method_provider: null,
    payment_method_reference: null,
    payment_method_label: null,
    authority_canceled_at: null,
  });

  const charge = (id: string, due_on: string) => ({ id, tenant_id: 'ten_old', payment_plan_id: 'pp_old', sequence: 1, due_on, outcome: 'succeeded' });
  await db('instalment_charges').insert(charge('ich_1', '2026-01-01'));
  await expect(db('instalment_charges').insert(charge('ich_2', '2026-01-01'))).rejects.toThrow(/unique/);
  await db('instalment_charges').insert(charge('ich_3', '2026-01-08')); // delayed: charged again on its new date

  const promise = (id: string, status = 'active') => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    amount: 100,
    currency: 'GBP',
    pay_on: '2026-01-10',
    payment_method_provider: 'local',
    payment_method_reference: 'lpm_s4242_x',
    payment_method_label: 'card ending 4242',
    status,
  });
  await db('payment_promises').insert(promise('ppr_1'));
  await expect(db('payment_promises').insert(promise('ppr_2'))).rejects.toThrow(/payment_promises_one_active/);
  await db('payment_promises').insert(promise('ppr_3', 'kept'));
  await expect(db('payment_promises').insert(promise('ppr_4', 'maybe'))).rejects.toThrow(/payment_promises_status/);

  const setup = (id: string, kind: string, ref: string) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    kind,
    terms: JSON.stringify({ kind: 'promise', pay_on: '2026-01-10' }),
    amount: 100,
    currency: 'GBP',
    provider: 'local',
    checkout_reference: ref,
  });
  await db('payment_setups').insert(setup('pst_1', 'promise', 'lcs_1'));
  expect((await db('payment_setups').where({ id: 'pst_1' }).first()).status).toBe('open');
  await expect(db('payment_setups').insert(setup('pst_2', 'promise', 'lcs_1'))).rejects.toThrow(/unique/);
  await expect(db('payment_setups').insert(setup('pst_3', 'loan', 'lcs_3'))).rejects.toThrow(/payment_setups_kind/);
});
