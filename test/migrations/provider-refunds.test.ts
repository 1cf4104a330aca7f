/**
 * Migration 103_provider_refunds (docs/api.md section 18 "Payments", refunds) on data made with the
 * old schema: a database at 102 with a portal payment (`metadata.source` `portal`, provider
 * `local`), a worker charge through `stripe`, and a tenant-recorded payment whose free-text
 * `payment_provider` is `stripe`, then migrated to the latest schema. The portal's and the worker's
 * payments get their `provider` (their refunds then go through it); the recorded one keeps none;
 * every other column is unchanged; the refunds table keeps its checks.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test("payments the platform took get their provider, recorded ones none; refunds' checks hold", async () => {
  const db = await scratch.at('102_sealed_statement_details');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'paying' });
  const payment = (id: string, payment_provider: string, metadata: Record<string, string>) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    amount: 1000,
    currency: 'GBP',
    status: 'succeeded',
    payment_provider,
    transaction_ref: `ref_${id}`,
    metadata: JSON.stringify(metadata),
  });
  await db('payments').insert([
    payment('pay_portal', 'local', { source: 'portal' }),
    payment('pay_charge', 'stripe', { source: 'portal', instalment: '1' }),
    payment('pay_recorded', 'stripe', { note: 'bank transfer' }),
  ]);
  const before = await db('payments').orderBy('id');

  await migrateLatest(db);

  const after = await db('payments').orderBy('id');
  const provider: Record<string, string | null> = { pay_charge: 'stripe', pay_portal: 'local', pay_recorded: null };
  expect(after).toEqual(before.map((p: { id: string }) => ({ ...p, provider: provider[p.id] })));

  const refund = (id: string, status: string, amount = 500) => ({ id, tenant_id: 'ten_old', payment_id: 'pay_portal', amount, provider: 'local', status });
  await db('payment_refunds').insert(refund('rfd_1', 'pending'));
  expect(await db('payment_refunds').where({ id: 'rfd_1' }).first()).toMatchObject({ status: 'pending', provider_reference: null, lease_until: null });
  await expect(db('payment_refunds').insert(refund('rfd_2', 'maybe'))).rejects.toThrow(/payment_refunds_status/);
  await expect(db('payment_refunds').insert(refund('rfd_3', 'pending', 0))).rejects.toThrow(/payment_refunds_amount/);
  await expect(db('payment_refunds').insert({ ...refund('rfd_4', 'pending'), payment_id: 'pay_none' })).rejects.toThrow(/foreign key/);
});
