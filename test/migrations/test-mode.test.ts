/**
 * Migration 050_test_mode (docs/api.md section 15) on data made with the old schema: a database
 * migrated to 025, tenants (one whose clock was moved by hand), a client and a debt inserted as the
 * old code wrote them, then migrated to the latest schema. Every old tenant is live with the
 * database's clock, its data unchanged; a test-mode tenant can then be paired with it, once, and
 * only a test tenant's clock may run ahead.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old tenants become live tenants with real clocks; a test tenant pairs with one, once', async () => {
  const db = await scratch.at('025_tenant_clock_and_configurations');
  await db('tenants').insert([
    { id: 'ten_old', name: 'Old' },
    { id: 'ten_ahead', name: 'Ahead', clock_offset_seconds: 3600 },
  ]);
  await db('oauth_clients').insert({ client_id: 'cli_old', tenant_id: 'ten_old', name: 'backend', secret_ciphertext: 'x', scope: 'debts:read' });
  await db('organisations').insert({ id: 'org_old', tenant_id: 'ten_old', name: 'Org' });
  await db('customers').insert({ id: 'cus_old', tenant_id: 'ten_old', kind: 'individual' });
  const debtsBefore = await db('debts').select('*');

  await migrateLatest(db);

  expect(await db('tenants').orderBy('id').select('id', 'livemode', 'live_tenant_id', 'clock_offset_seconds')).toEqual([
    { id: 'ten_ahead', livemode: true, live_tenant_id: null, clock_offset_seconds: 0 },
    { id: 'ten_old', livemode: true, live_tenant_id: null, clock_offset_seconds: 0 },
  ]);
  expect(await db('debts').select('*')).toEqual(debtsBefore);
  expect(await db('oauth_clients').where({ client_id: 'cli_old' }).first('tenant_id')).toEqual({ tenant_id: 'ten_old' });

  await db('tenants').insert({ id: 'ten_test', name: 'Old', livemode: false, live_tenant_id: 'ten_old' });
  // One test tenant per live tenant; a test tenant names its live one; only it may run ahead.
  await expect(db('tenants').insert({ id: 'ten_test2', name: 'Old', livemode: false, live_tenant_id: 'ten_old' })).rejects.toThrow(/unique/);
  await expect(db('tenants').insert({ id: 'ten_orphan', name: 'X', livemode: false })).rejects.toThrow(/tenants_test_pair/);
  await expect(db('tenants').where({ id: 'ten_old' }).update({ clock_offset_seconds: 60 })).rejects.toThrow(/tenants_live_clock/);
  await db('tenants').where({ id: 'ten_test' }).update({ clock_offset_seconds: 60 });
  const { rows } = await db.raw(`SELECT tenant_now('ten_test') - tenant_now('ten_old') AS ahead`);
  expect(rows[0].ahead).toMatchObject({ minutes: 1 });
});
