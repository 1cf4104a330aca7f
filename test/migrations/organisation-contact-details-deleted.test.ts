/**
 * Migration 066_organisation_contact_details_deleted (docs/api.md section 15) on data made with the
 * old schema: a database migrated to 065, an organisation contact detail inserted as the old code
 * wrote it, then migrated to the latest schema. The detail's row is unchanged but for the new
 * `deleted_at`, null: it stays visible.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('details made before keep their rows and stay visible (deleted_at null)', async () => {
  const db = await scratch.at('065_organisation_contact_details');
  await insertOldParties(db);
  await db('organisation_contact_details').insert({
    id: 'ocd_old',
    tenant_id: 'ten_old',
    organisation_id: 'org_old',
    type: 'email',
    value: 'a@example.com',
    primary: true,
  });
  const before = await db('organisation_contact_details').select('*');
  expect(before).toHaveLength(1);

  await migrateLatest(db);

  expect(await db('organisation_contact_details').select('*')).toEqual([{ ...before[0], deleted_at: null }]);
});
