/**
 * Income and expenditure statements (docs/api.md section 19):
 * `income_and_expenditures` (`iae_`), one row per statement a customer gave about a debt, after
 * the Standard Financial Statement. Like every tenant table it carries `tenant_id` (a test-mode
 * tenant's statements live under its own id, so test and live data stay apart, migration 050).
 *
 * - Household counts are columns with their bounds; each money group (`income`, `fixed_costs`,
 *   `flexible_costs`, `priority_debts`, `other_debts`) is a JSON object of entries as entered and
 *   converted, `{amount, frequency, monthly}` in minor units; `disposable_income` is the monthly
 *   figure computed when the statement was stored (negative when outgoings exceed income).
 * - `whodunnit`: who gave it, `customer:<id>` from the portal, or the tenant's client id.
 * - Statements are never changed: a new circumstance is a new statement, the latest one counts.
 * - Indexes: a debt's statements `(debt_id, seq)`; a maintained counter per debt (`X-Total-Count`).
 * - Nothing existing changes: no debt had a statement before.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const BY_DEBT: CountedList = { table: 'income_and_expenditures', list: 'debt_income_and_expenditures', parent: 'R.debt_id', visible: 'true' };
const GROUPS = ['income', 'fixed_costs', 'flexible_costs', 'priority_debts', 'other_debts'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE income_and_expenditures (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      debt_id text NOT NULL REFERENCES debts(id),
      customer_id text NOT NULL REFERENCES customers(id),
      currency char(3) NOT NULL,
      adults integer NOT NULL CHECK (adults BETWEEN 1 AND 20),
      children integer NOT NULL CHECK (children BETWEEN 0 AND 30),
      vehicles integer NOT NULL CHECK (vehicles BETWEEN 0 AND 20),
      ${GROUPS.map((g) => `${g} jsonb NOT NULL CHECK (jsonb_typeof(${g}) = 'object')`).join(',\n      ')},
      disposable_income bigint NOT NULL,
      whodunnit text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX income_and_expenditures_debt_list ON income_and_expenditures (debt_id, seq)');
  await createListCounter(knex, BY_DEBT);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, BY_DEBT);
  await knex.raw('DROP TABLE income_and_expenditures');
}
