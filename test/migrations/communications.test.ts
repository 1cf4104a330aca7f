/**
 * Migration 030_communications (docs/api.md sections 12 and 13) on data made with the old schema:
 * a database migrated to 025, debts inserted as the old code wrote them, then migrated to the
 * latest schema. Every debt keeps its status and amounts and starts with the engine's bookkeeping
 * empty (step 0, nothing due, never contacted); the communications list counters start empty.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, expect, test } from '@jest/globals';
import { createDb, ensureDatabase, migrateLatest, migrateTo, type Knex } from '@dms/db';

const base = new URL(process.env.TEST_DATABASE_URL!);
const name = `dms_mig_${randomBytes(4).toString('hex')}`;
let db: Knex | undefined;

afterAll(async () => {
  await db?.destroy();
  const admin = createDb(new URL('/postgres', base).href, 1);
  await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.destroy();
});

test('old debts keep their status and amounts and get empty engine bookkeeping', async () => {
  await ensureDatabase(new URL('/postgres', base).href, name);
  db = createDb(new URL(`/${name}`, base).href, 2);
  await migrateTo(db, '025_tenant_clock_and_configurations');
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  await db('organisations').insert({ id: 'org_old', tenant_id: 'ten_old', name: 'Org' });
  await db('customers').insert({ id: 'cus_old', tenant_id: 'ten_old', kind: 'individual' });
  const debt = (id: string, status: string) => ({ id, tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status });
  await db('debts').insert([debt('deb_a', 'prepared'), debt('deb_b', 'paying'), debt('deb_c', 'contacted')]);
  const before = await db('debts').orderBy('id').select('id', 'status', 'amount_total', 'status_updated_at');

  await migrateLatest(db);

  expect(await db('debts').orderBy('id').select('id', 'status', 'amount_total', 'status_updated_at')).toEqual(before);
  expect(await db('debts').orderBy('id').select('engine_step', 'engine_due_at', 'contacted_at')).toEqual(
    Array.from({ length: 3 }, () => ({ engine_step: 0, engine_due_at: null, contacted_at: null })),
  );
  expect(await db('list_counters').whereIn('list', ['communications', 'debt_communications'])).toEqual([]);
  expect(await db.schema.hasTable('communications')).toBe(true);
});
