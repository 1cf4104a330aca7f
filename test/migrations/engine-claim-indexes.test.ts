/**
 * Migration 067_engine_claim_indexes (docs/api.md section 13) on data made with the old schema: a
 * database migrated to 066 with a debt in each status the engine takes in or waits on, then
 * migrated to the latest schema. The debts are unchanged; the intake index covers the intake
 * statuses only and the new waiting index the statuses that wait for a contact detail, so each
 * old debt is found by the claim that takes it.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('debts made before keep their rows; each engine status is in its claim index', async () => {
  const db = await scratch.at('066_organisation_contact_details_deleted');
  await insertOldParties(db);
  const statuses = ['prepared', 'adjusted', 'resumed', 'enriching', 'contact_failed', 'contacted'];
  await db('debts').insert(
    statuses.map((status, i) => ({
      id: `deb_old${i}`,
      tenant_id: 'ten_old',
      customer_id: 'cus_old',
      organisation_id: 'org_old',
      currency: 'GBP',
      amount_principal: 1_000 + i,
      status,
    })),
  );
  const before = await db('debts').orderBy('id');

  await migrateLatest(db);

  expect(await db('debts').orderBy('id')).toEqual(before);
  const indexes = Object.fromEntries(
    (await db('pg_indexes').where({ tablename: 'debts' }).whereIn('indexname', ['debts_engine_intake', 'debts_engine_waiting'])).map(
      (r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef],
    ),
  );
  expect(indexes.debts_engine_intake).toMatch(/\(status_updated_at\) WHERE \(status = ANY \(ARRAY\['prepared'::text, 'adjusted'::text, 'resumed'::text\]\)\)$/);
  expect(indexes.debts_engine_waiting).toMatch(/\(status_updated_at\) WHERE \(status = ANY \(ARRAY\['enriching'::text, 'contact_failed'::text\]\)\)$/);
  // Each old debt is reached through the index of the claim that takes it.
  const through = async (index: string, statusList: string[]) =>
    db.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      await trx.raw('SET LOCAL enable_bitmapscan = off');
      const rows = await trx('debts').whereIn('status', statusList).orderBy('status_updated_at').select('id');
      const { rows: plan } = await trx.raw(`EXPLAIN SELECT id FROM debts WHERE status = ANY(?) ORDER BY status_updated_at`, [statusList]);
      expect(plan.map((p: { 'QUERY PLAN': string }) => p['QUERY PLAN']).join('\n')).toContain(index);
      return rows.map((r: { id: string }) => r.id).sort();
    });
  expect(await through('debts_engine_intake', ['prepared', 'adjusted', 'resumed'])).toEqual(['deb_old0', 'deb_old1', 'deb_old2']);
  expect(await through('debts_engine_waiting', ['enriching', 'contact_failed'])).toEqual(['deb_old3', 'deb_old4']);
});
