/**
 * Migration 030_communications (docs/api.md sections 12 and 13) on data made with the old schema:
 * a database migrated to 025, debts inserted as the old code wrote them, then migrated to the
 * latest schema. Every debt keeps its status and amounts and starts with the engine's bookkeeping
 * empty (step 0, nothing due, never contacted); the communications list counters start empty.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old debts keep their status and amounts and get empty engine bookkeeping', async () => {
  const db = await scratch.at('025_tenant_clock_and_configurations');
  await insertOldParties(db);
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
