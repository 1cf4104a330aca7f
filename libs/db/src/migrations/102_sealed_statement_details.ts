/**
 * Income and expenditure details encrypted at rest (docs/api.md section 20):
 * `income_and_expenditures.details_encrypted` holds the `SECRETS_KEY` ciphertext of the JSON
 * object of the five money groups (income, fixed_costs, flexible_costs, priority_debts,
 * other_debts); new statements leave those clear columns null. The household counts and
 * `disposable_income` (what offers are capped by) stay in clear. Existing rows keep their clear
 * groups until the worker's start-up step (`sealLegacyStatements` in the domain library) seals
 * and clears them: a migration has no key. Adds a column and drops NOT NULL: no row is rewritten.
 */
import type { Knex } from 'knex';

const GROUPS = ['income', 'fixed_costs', 'flexible_costs', 'priority_debts', 'other_debts'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE income_and_expenditures ADD COLUMN details_encrypted text, ${GROUPS.map((g) => `ALTER COLUMN ${g} DROP NOT NULL`).join(', ')}`);
  // A statement holds its groups one way or the other: in clear (before sealing) or sealed.
  await knex.raw(
    `ALTER TABLE income_and_expenditures ADD CONSTRAINT income_and_expenditures_details_stored CHECK (details_encrypted IS NOT NULL OR (${GROUPS.map((g) => `${g} IS NOT NULL`).join(' AND ')}))`,
  );
  await knex.raw('CREATE INDEX income_and_expenditures_clear_details ON income_and_expenditures (id) WHERE details_encrypted IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX income_and_expenditures_clear_details');
  await knex.raw('ALTER TABLE income_and_expenditures DROP CONSTRAINT income_and_expenditures_details_stored');
  await knex.raw('ALTER TABLE income_and_expenditures DROP COLUMN details_encrypted');
}
