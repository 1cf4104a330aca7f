/**
 * Migration 087_income_and_expenditures (docs/api.md section 18) on data made with the old schema:
 * a database migrated to 080, a debt inserted as the old code wrote it, then migrated to the
 * latest schema. The old rows are unchanged and the debt has no statement (its counted list is
 * empty); the new table keeps its household bounds, its JSON groups objects and its debt, and its
 * per-debt counter follows inserts.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old debts keep their rows and have no statements; the new table keeps its rules and counts per debt', async () => {
  const db = await scratch.at('080_contact_preferences');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'analysing' });
  const before = { debts: await db('debts').select('*'), customers: await db('customers').select('*') };

  await migrateLatest(db);

  expect(await db('debts').select('*')).toEqual(before.debts);
  expect(await db('customers').select('*')).toEqual(before.customers);
  expect(await db('income_and_expenditures').select('*')).toEqual([]);
  expect(await db('list_counters').where({ list: 'debt_income_and_expenditures' }).select('*')).toEqual([]);

  const entry = { amount: 100, frequency: 'weekly', monthly: 433 };
  const row = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    currency: 'GBP',
    adults: 1,
    children: 2,
    vehicles: 0,
    income: { earnings: entry },
    fixed_costs: {},
    flexible_costs: {},
    priority_debts: {},
    other_debts: {},
    disposable_income: 433,
    whodunnit: 'customer:cus_old',
    ...extra,
  });
  await db('income_and_expenditures').insert(row('iae_1'));
  await expect(db('income_and_expenditures').insert(row('iae_2', { adults: 0 }))).rejects.toThrow(/check/);
  await expect(db('income_and_expenditures').insert(row('iae_3', { children: 31 }))).rejects.toThrow(/check/);
  await expect(db('income_and_expenditures').insert(row('iae_4', { income: JSON.stringify([entry]) }))).rejects.toThrow(/check/);
  await expect(db('income_and_expenditures').insert(row('iae_5', { debt_id: 'deb_missing' }))).rejects.toThrow(/foreign key/);
  await db('income_and_expenditures').insert(row('iae_6', { disposable_income: -5000 }));

  const stored = await db('income_and_expenditures').orderBy('seq').select('id', 'income', 'disposable_income');
  expect(stored).toEqual([
    { id: 'iae_1', income: { earnings: entry }, disposable_income: 433 },
    { id: 'iae_6', income: { earnings: entry }, disposable_income: -5000 },
  ]);
  const counted = await db('list_counters').where({ list: 'debt_income_and_expenditures', parent_id: 'deb_old' }).sum('count as n').first();
  expect(Number(counted!.n)).toBe(2);
});
