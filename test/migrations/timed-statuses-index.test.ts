/**
 * Migration 088_timed_statuses_index (docs/api.md sections 9, 12 and 18) on data made with the old
 * schema: a database migrated to 080 with a paused, a protected and a follow-up debt, each with
 * `pause_end_at`, then migrated to the latest schema. The debts are unchanged; `debts_pause_end`
 * now covers the three statuses the worker ends on time.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

const indexDef = async (db: Awaited<ReturnType<typeof scratch.at>>) =>
  ((await db('pg_indexes').where({ tablename: 'debts', indexname: 'debts_pause_end' }).first()) as { indexdef: string }).indexdef;

test('debts made before keep their rows; the index covers paused, legal_protection and follow_up_required', async () => {
  const db = await scratch.at('080_contact_preferences');
  await insertOldParties(db);
  const statuses = ['paused', 'legal_protection', 'follow_up_required'];
  await db('debts').insert(
    statuses.map((status, i) => ({
      id: `deb_old${i}`,
      tenant_id: 'ten_old',
      customer_id: 'cus_old',
      organisation_id: 'org_old',
      currency: 'GBP',
      amount_principal: 1_000 + i,
      status,
      pause_end_at: new Date('2030-01-01T00:00:00Z'),
    })),
  );
  const before = await db('debts').orderBy('id');
  expect(await indexDef(db)).toMatch(/WHERE \(\(status = 'paused'::text\) AND \(pause_end_at IS NOT NULL\)\)$/);

  await migrateLatest(db);

  expect(await db('debts').orderBy('id')).toEqual(before);
  expect(await indexDef(db)).toMatch(
    /WHERE \(\(status = ANY \(ARRAY\['paused'::text, 'legal_protection'::text, 'follow_up_required'::text\]\)\) AND \(pause_end_at IS NOT NULL\)\)$/,
  );
});
