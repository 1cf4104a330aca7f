/**
 * Migration 065_organisation_contact_details (docs/api.md section 15) on data made with the old
 * schema: a database migrated to 040, an organisation and a customer's contact detail inserted as
 * the old code wrote them, then migrated to the latest schema. The old rows are unchanged, the
 * organisation has no contact details, and the new table keeps one primary per type and an
 * address's shape; its metadata search index exists.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old organisations keep their rows and have no contact details; the new table keeps its rules', async () => {
  const db = await scratch.at('040_imports');
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  await db('organisations').insert({ id: 'org_old', tenant_id: 'ten_old', name: 'Org', industry: 'utilities' });
  await db('customers').insert({ id: 'cus_old', tenant_id: 'ten_old', kind: 'individual' });
  await db('customer_contact_details').insert({ id: 'cd_old', tenant_id: 'ten_old', customer_id: 'cus_old', type: 'email', value: 'a@example.com' });
  const before = { orgs: await db('organisations').select('*'), details: await db('customer_contact_details').select('*') };

  await migrateLatest(db);

  expect(await db('organisations').select('*')).toEqual(before.orgs);
  expect(await db('customer_contact_details').select('*')).toEqual(before.details);
  expect(await db('organisation_contact_details').select('*')).toEqual([]);

  const row = { tenant_id: 'ten_old', organisation_id: 'org_old', type: 'email' };
  await db('organisation_contact_details').insert({ ...row, id: 'ocd_1', value: 'help@example.com', primary: true });
  await expect(db('organisation_contact_details').insert({ ...row, id: 'ocd_2', value: 'b@example.com', primary: true })).rejects.toThrow(
    /organisation_contact_details_one_primary/,
  );
  await db('organisation_contact_details').insert({ ...row, id: 'ocd_3', value: 'c@example.com' });
  await expect(db('organisation_contact_details').insert({ ...row, id: 'ocd_4', type: 'address', value: '1 High St' })).rejects.toThrow(/check/);
  await expect(db('organisation_contact_details').insert({ ...row, id: 'ocd_5', organisation_id: 'org_missing', value: 'd@example.com' })).rejects.toThrow(
    /foreign key/,
  );
  const { rows } = await db.raw(`SELECT indexname FROM pg_indexes WHERE tablename = 'organisation_contact_details' ORDER BY indexname`);
  expect(rows.map((r: { indexname: string }) => r.indexname)).toEqual(
    expect.arrayContaining(['organisation_contact_details_list', 'organisation_contact_details_one_primary', 'organisation_contact_details_search_metadata']),
  );
  expect((await db('organisation_contact_details').where({ organisation_id: 'org_old' }).orderBy('seq').select('id')).map((r) => r.id)).toEqual([
    'ocd_1',
    'ocd_3',
  ]);
});
