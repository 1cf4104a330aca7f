/**
 * Statement details encrypted at rest (libs/db/src/migrations/102_sealed_statement_details.ts,
 * docs/api.md section 20): statements written with the schema before 102 keep their clear money
 * groups through the migration; `sealLegacyStatements` then seals them with the personal-data box
 * and clears the group columns, batch by batch; the statement reads back the same, household and
 * disposable income untouched, and a second run changes nothing. A row with neither form is refused.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { sealLegacyStatements, toIncomeAndExpenditure, type IncomeAndExpenditureRow } from '@dms/domain/income-and-expenditure';
import { MIGRATIONS } from '../../libs/db/src/migrations/index.js';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();
/** The migration 102 follows, whichever it is once other migrations are merged in. */
const BEFORE = MIGRATIONS[MIGRATIONS.findIndex(([name]) => name === '102_sealed_statement_details') - 1]![0];

const monthly = (amount: number) => ({ amount, frequency: 'monthly', monthly: amount });
const statement = (i: number) => ({
  id: `iae_old${i}`,
  tenant_id: 'ten_old',
  debt_id: 'deb_old',
  customer_id: 'cus_old',
  currency: 'GBP',
  adults: 2,
  children: i,
  vehicles: 1,
  income: { earnings: monthly(250_000 + i) },
  fixed_costs: { housing: monthly(90_000) },
  flexible_costs: {},
  priority_debts: {},
  other_debts: { other: monthly(1_000) },
  disposable_income: 159_000 + i,
  whodunnit: 'customer:cus_old',
});

test('clear statement details written before 102 are sealed in batches and read back the same; a second run does nothing', async () => {
  const db = await scratch.at(BEFORE);
  await insertOldParties(db);
  await db('debts').insert({
    id: 'deb_old',
    tenant_id: 'ten_old',
    customer_id: 'cus_old',
    organisation_id: 'org_old',
    currency: 'GBP',
    status: 'resumed',
    amount_principal: 1_000_000,
  });
  await db('income_and_expenditures').insert([0, 1, 2].map(statement));
  const before = ((await db('income_and_expenditures').orderBy('id')) as IncomeAndExpenditureRow[]).map(toIncomeAndExpenditure);

  await migrateLatest(db);
  expect(await db('income_and_expenditures').whereNull('details_encrypted').pluck('id')).toHaveLength(3);

  expect(await sealLegacyStatements(db, 2)).toBe(3);
  const rows = (await db('income_and_expenditures').orderBy('id')) as IncomeAndExpenditureRow[];
  for (const r of rows) {
    expect(r).toMatchObject({ income: null, fixed_costs: null, flexible_costs: null, priority_debts: null, other_debts: null });
    expect(r.details_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(r)).not.toContain('25000');
  }
  expect(rows.map(toIncomeAndExpenditure)).toEqual(before);
  expect(rows.map((r) => Number(r.disposable_income))).toEqual([159_000, 159_001, 159_002]);

  const sealed = await db('income_and_expenditures').orderBy('id').pluck('details_encrypted');
  expect(await sealLegacyStatements(db)).toBe(0);
  expect(await db('income_and_expenditures').orderBy('id').pluck('details_encrypted')).toEqual(sealed);

  await expect(db('income_and_expenditures').insert({ ...statement(9), income: null, details_encrypted: null })).rejects.toThrow(
    /income_and_expenditures_details_stored/,
  );
});
