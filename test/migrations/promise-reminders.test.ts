/**
 * Migration 105_promise_reminders (docs/api.md section 18 "Pay later") on data made with the old
 * schema: a database migrated to 102, a debt and its active promise inserted as the old code wrote
 * them, then migrated to 105. The old rows keep their values, with no reminder yet (so an old
 * promise is still reminded the day before); a reminder names a communication that exists, and
 * one communication reminds one promise only.
 */
import { expect, test } from '@jest/globals';
import { migrateTo } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old promises keep their rows and are not yet reminded; a reminder is one existing communication per promise', async () => {
  const db = await scratch.at('102_sealed_statement_details');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'contacted' });
  const promise = (id: string) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    amount: 12500,
    currency: 'GBP',
    pay_on: '2026-12-04',
    payment_method_provider: 'local',
    payment_method_reference: 'lpm_old',
    payment_method_label: 'Visa 4242',
  });
  await db('payment_promises').insert([promise('ppr_old'), { ...promise('ppr_kept'), status: 'kept' }]);
  const before = await db('payment_promises').orderBy('id').select('*');

  await migrateTo(db, '105_promise_reminders');

  const after = await db('payment_promises').orderBy('id').select('*');
  expect(after).toEqual(before.map((r) => ({ ...r, reminder_communication_id: null, reminder_next_at: null })));

  await expect(db('payment_promises').where({ id: 'ppr_old' }).update({ reminder_communication_id: 'com_missing' })).rejects.toThrow(/foreign key/);
  await db('communications').insert({
    id: 'com_1',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    direction: 'outbound',
    delivery_method: 'email',
    status: 'queued',
  });
  await db('payment_promises').where({ id: 'ppr_old' }).update({ reminder_communication_id: 'com_1' });
  await expect(db('payment_promises').where({ id: 'ppr_kept' }).update({ reminder_communication_id: 'com_1' })).rejects.toThrow(
    /payment_promises_reminder_once/,
  );
  expect((await db('payment_promises').where({ id: 'ppr_old' }).first()).reminder_communication_id).toBe('com_1');
});
