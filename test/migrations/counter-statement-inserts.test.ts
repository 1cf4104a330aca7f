/**
 * Migration 055_counter_statement_inserts (docs/api.md sections 4 and 16) on data made with the
 * old schema: rows counted by the old row triggers, then migrated; multi-row inserts (counted by
 * the new statement triggers), one-row inserts, soft deletes, a status change and a delete
 * (still the row triggers') afterwards. Every list's total (the sum of its counter shards) stays
 * the number of its visible rows.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest, type Knex } from '@dms/db';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();

/** Each list's total from its counters beside the count of its visible rows. */
async function totals(k: Knex): Promise<Array<{ list: string; parent: string; counted: number; actual: number }>> {
  const { rows } = await k.raw(`
    WITH actual AS (
      SELECT tenant_id, 'customers' AS list, '' AS parent, count(*) AS n FROM customers WHERE deleted_at IS NULL GROUP BY 1
      UNION ALL SELECT tenant_id, 'contact_details', customer_id, count(*) FROM customer_contact_details WHERE status <> 'deleted' GROUP BY 1, 3
      UNION ALL SELECT tenant_id, 'debts', '', count(*) FROM debts WHERE status <> 'deleted' GROUP BY 1
      UNION ALL SELECT tenant_id, 'line_items', debt_id, count(*) FROM line_items GROUP BY 1, 3
      UNION ALL SELECT tenant_id, 'events', '', count(*) FROM events GROUP BY 1),
    counted AS (
      SELECT tenant_id, list, parent_id AS parent, sum(count) AS n FROM list_counters
      WHERE list IN ('customers', 'contact_details', 'debts', 'line_items', 'events') GROUP BY 1, 2, 3)
    SELECT coalesce(a.list, c.list) AS list, coalesce(a.parent, c.parent) AS parent, coalesce(c.n, 0)::int AS counted, coalesce(a.n, 0)::int AS actual
    FROM actual a FULL JOIN counted c USING (tenant_id, list, parent) ORDER BY 1, 2`);
  return rows;
}

const customer = (id: string) => ({ id, tenant_id: 'ten_old', kind: 'individual', first_name: id });
const detail = (id: string, customerId: string, type: string) => ({ id, tenant_id: 'ten_old', customer_id: customerId, type, value: `${id}@example.com` });
const debt = (id: string, customerId: string) => ({
  id,
  tenant_id: 'ten_old',
  customer_id: customerId,
  organisation_id: 'org_old',
  currency: 'GBP',
  amount_principal: 1000,
});
const item = (id: string, debtId: string) => ({
  id,
  tenant_id: 'ten_old',
  debt_id: debtId,
  kind: 'debt',
  amount: 1000,
  currency: 'GBP',
  transaction_at: new Date(),
});
const event = (id: string) => ({ id, tenant_id: 'ten_old', type: 'debt.created', api_version: '2024-01-01', data: '{}' });

test('inserts, one row or many, soft deletes and deletes keep every list total equal to its rows across the migration', async () => {
  const db = await scratch.at('040_imports');
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  await db('organisations').insert({ id: 'org_old', tenant_id: 'ten_old', name: 'Org' });
  await db('customers').insert([customer('cus_a'), customer('cus_b')]);
  await db('customer_contact_details').insert([detail('cd_a1', 'cus_a', 'email'), detail('cd_a2', 'cus_a', 'email'), detail('cd_b1', 'cus_b', 'email')]);
  await db('debts').insert([debt('deb_a', 'cus_a'), debt('deb_b', 'cus_b')]);
  await db('line_items').insert([item('li_a1', 'deb_a'), item('li_a2', 'deb_a')]);
  await db('events').insert([event('evt_1'), event('evt_2')]);
  const before = await totals(db);
  expect(before.every((t) => t.counted === t.actual)).toBe(true);
  expect(before.find((t) => t.list === 'events')).toMatchObject({ counted: 2 });

  await migrateLatest(db);
  expect(await totals(db)).toEqual(before);

  // Many rows in one statement (as a batch of placements writes them), and one row (as the API does).
  await db.transaction(async (trx) => {
    await trx('customers').insert([customer('cus_c'), customer('cus_d'), { ...customer('cus_e'), deleted_at: new Date() }]);
    await trx('customer_contact_details').insert([
      detail('cd_c1', 'cus_c', 'email'),
      detail('cd_c2', 'cus_c', 'email'),
      detail('cd_d1', 'cus_d', 'email'),
      { ...detail('cd_d2', 'cus_d', 'email'), status: 'deleted' },
    ]);
    await trx('debts').insert([debt('deb_c', 'cus_c'), { ...debt('deb_d', 'cus_d'), status: 'deleted' }, debt('deb_e', 'cus_d')]);
    await trx('line_items').insert([item('li_c1', 'deb_c'), item('li_c2', 'deb_c'), item('li_e1', 'deb_e'), item('li_a3', 'deb_a')]);
    await trx('events').insert(Array.from({ length: 50 }, (_, i) => event(`evt_m${i}`)));
  });
  await db('customers').insert(customer('cus_f'));
  await db('events').insert(event('evt_3'));
  // Membership changes and deletes, still counted row by row.
  await db('customers').where({ id: 'cus_b' }).update({ deleted_at: new Date() });
  await db('customer_contact_details').where({ id: 'cd_a1' }).update({ status: 'deleted' });
  await db('debts').where({ id: 'deb_e' }).update({ status: 'deleted' });
  await db('line_items').where({ id: 'li_a2' }).delete();
  await db('events').where({ id: 'evt_1' }).delete();

  const after = await totals(db);
  expect(after.filter((t) => t.counted !== t.actual)).toEqual([]);
  expect(Object.fromEntries(after.filter((t) => t.parent === '').map((t) => [t.list, t.counted]))).toEqual({
    customers: 4,
    debts: 3,
    events: 52,
  });
  expect(after.find((t) => t.list === 'contact_details' && t.parent === 'cus_c')).toMatchObject({ counted: 2 });
});
