/**
 * Migration 098_proposals (docs/api.md section 18) on data made with the old schema: a database
 * migrated to 092, a debt and its statement inserted as the old code wrote them,
 * then migrated to 098. The old rows are unchanged and there are no proposals; the new table keeps
 * its rules (positive terms, a known frequency, a decision time exactly when decided, a reason
 * exactly when declined, one pending proposal per debt, statements that exist) and its list is counted.
 */
import { expect, test } from '@jest/globals';
import { migrateTo } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

const EMPTY = { income: {}, fixed_costs: {}, flexible_costs: {}, priority_debts: {}, other_debts: {} };

test('old debts and statements keep their rows; the new table keeps its rules and counts its list', async () => {
  const db = await scratch.at('092_portal_communications');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'prepared' });
  await db('income_and_expenditures').insert({
    id: 'iae_old',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    currency: 'GBP',
    adults: 1,
    children: 0,
    vehicles: 0,
    ...EMPTY,
    disposable_income: 0,
    whodunnit: 'customer:cus_old',
  });
  const before = {
    debts: await db('debts').select('*'),
    statements: await db('income_and_expenditures').select('*'),
    counters: await db('list_counters').select('*').orderBy(['list', 'parent_id']),
  };

  await migrateTo(db, '098_proposals');

  expect(await db('debts').select('*')).toEqual(before.debts);
  expect(await db('income_and_expenditures').select('*')).toEqual(before.statements);
  expect(await db('list_counters').select('*').orderBy(['list', 'parent_id'])).toEqual(before.counters);
  expect(await db('proposals').select('*')).toEqual([]);

  const row = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    income_and_expenditure_id: 'iae_old',
    currency: 'GBP',
    instalment_amount: 700,
    frequency: 'monthly',
    instalment_count: 15,
    start_on: '2026-12-01',
    whodunnit: 'customer:cus_old',
    ...extra,
  });
  await db('proposals').insert(row('prp_1'));
  await expect(db('proposals').insert(row('prp_2'))).rejects.toThrow(/proposals_one_pending/);
  const decided = { status: 'declined', decided_at: new Date(), decline_reason: 'no' };
  await expect(db('proposals').insert(row('prp_3', { ...decided, instalment_amount: 0 }))).rejects.toThrow(/check/);
  await expect(db('proposals').insert(row('prp_4', { ...decided, frequency: 'daily' }))).rejects.toThrow(/check/);
  await expect(db('proposals').insert(row('prp_5', { status: 'declined', decline_reason: 'no' }))).rejects.toThrow(/check/);
  await expect(db('proposals').insert(row('prp_6', { ...decided, decline_reason: null }))).rejects.toThrow(/check/);
  await expect(db('proposals').insert(row('prp_7', { ...decided, income_and_expenditure_id: 'iae_missing' }))).rejects.toThrow(/foreign key/);
  await db('proposals').insert(row('prp_8', decided));

  expect((await db('proposals').orderBy('seq').select('id', 'status')).map((r) => r.id)).toEqual(['prp_1', 'prp_8']);
  const counted = await db('list_counters').where({ list: 'proposals' }).sum('count as n').first();
  expect(Number(counted!.n)).toBe(2);
});
