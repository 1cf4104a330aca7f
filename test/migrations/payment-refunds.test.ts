/**
 * Migration 109_payment_refunds (docs/api.md sections 8 and 18 "Payments", refunds) on data made
 * with the old schema: a database at 108 with a debt and a partly refunded provider payment, then
 * migrated to 109. The old rows are unchanged but for the new `provider_managed`, `false` (even a
 * payment named after a provider with a reference: its name is free text a tenant may have
 * written, so it is refunded in the ledger only), and there are no provider refunds; the new table
 * keeps its rules (a positive amount, a known status, one row per provider reference, a payment
 * that exists).
 */
import { expect, test } from '@jest/globals';
import { migrateTo } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old payments keep their rows, are not provider_managed and have no provider refunds; the new table keeps its rules', async () => {
  const db = await scratch.at('108_erased_idempotent_responses');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'resumed' });
  await db('payments').insert({
    id: 'pay_old',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    amount: 4000,
    currency: 'GBP',
    status: 'partially_refunded',
    amount_refunded: 1500,
    payment_provider: 'local',
    transaction_ref: 'lcs_old',
    transaction_at: new Date(),
  });
  const before = { debts: await db('debts').select('*'), payments: await db('payments').select('*') };

  await migrateTo(db, '109_payment_refunds');

  expect(await db('debts').select('*')).toEqual(before.debts);
  expect(await db('payments').select('*')).toEqual(before.payments.map((p) => ({ ...p, provider_managed: false })));
  // New rows get the constant default too; the column takes no null.
  await db('payments').insert({
    id: 'pay_new',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    amount: 100,
    currency: 'GBP',
    status: 'pending',
    transaction_at: new Date(),
  });
  expect(await db('payments').where({ id: 'pay_new' }).first('provider_managed')).toEqual({ provider_managed: false });
  await expect(db('payments').where({ id: 'pay_new' }).update({ provider_managed: null })).rejects.toThrow(/not-null|null value/);
  await db('payments').where({ id: 'pay_new' }).delete();
  expect(await db('payment_refunds').select('*')).toEqual([]);

  const row = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    tenant_id: 'ten_old',
    payment_id: 'pay_old',
    debt_id: 'deb_old',
    amount: 1000,
    currency: 'GBP',
    provider: 'local',
    provider_reference: `lre_${id}`,
    status: 'succeeded',
    ...extra,
  });
  await db('payment_refunds').insert([row('rfd_1'), row('rfd_2', { status: 'pending' }), row('rfd_3', { status: 'failed' })]);
  await expect(db('payment_refunds').insert(row('rfd_4', { amount: 0 }))).rejects.toThrow(/payment_refunds_amount/);
  await expect(db('payment_refunds').insert(row('rfd_5', { status: 'refunded' }))).rejects.toThrow(/payment_refunds_status/);
  await expect(db('payment_refunds').insert(row('rfd_6', { provider_reference: 'lre_rfd_1' }))).rejects.toThrow(/unique/);
  await expect(db('payment_refunds').insert(row('rfd_7', { payment_id: 'pay_missing' }))).rejects.toThrow(/foreign key/);
  expect(await db('payment_refunds').orderBy('id').pluck('id')).toEqual(['rfd_1', 'rfd_2', 'rfd_3']);
  expect((await db('payment_refunds').where({ id: 'rfd_1' }).first()).created_at).toBeInstanceOf(Date);
});
