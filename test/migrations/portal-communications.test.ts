/**
 * Migration 092_portal_communications (docs/api.md sections 13 and 18) on data made with the old
 * schema: a database migrated to 087 with an inbound email reply, then migrated to the latest
 * schema. The old row is unchanged; an inbound `portal` communication is accepted and an unknown
 * channel is still refused.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old communications are unchanged; portal is a delivery method, an unknown one is still refused', async () => {
  const db = await scratch.at('087_income_and_expenditures');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'analysing' });
  const com = (id: string, method: string) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    direction: 'inbound',
    delivery_method: method,
    status: 'received',
    provider: method,
    provider_reference: id,
    body: 'hello',
  });
  await db('communications').insert(com('com_old', 'email'));
  await expect(db('communications').insert(com('com_early', 'portal'))).rejects.toThrow(/communications_delivery_method_check/);
  const before = await db('communications').select('*');

  await migrateLatest(db);

  expect(await db('communications').select('*')).toEqual(before);
  await db('communications').insert(com('com_portal', 'portal'));
  expect((await db('communications').where({ id: 'com_portal' }).first()).delivery_method).toBe('portal');
  await expect(db('communications').insert(com('com_fax', 'fax'))).rejects.toThrow(/communications_delivery_method_check/);
});
