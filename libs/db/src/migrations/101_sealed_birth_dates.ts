/**
 * Dates of birth encrypted at rest (docs/api.md section 20): `customers.date_of_birth_encrypted`
 * holds the `SECRETS_KEY` ciphertext of the `YYYY-MM-DD` date; new writes leave the clear
 * `date_of_birth` null. Existing rows keep their clear date until the services' start-up step
 * (`sealLegacyBirthDates` in the domain library) seals it and clears it, in batches: a migration
 * has no key. Adds a nullable column only: no row is rewritten here.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.text('date_of_birth_encrypted');
  });
  // Only rows still to seal are looked up at start: a small partial index keeps that cheap.
  await knex.raw('CREATE INDEX customers_clear_birth_date ON customers (id) WHERE date_of_birth IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX customers_clear_birth_date');
  await knex.schema.alterTable('customers', (t) => {
    t.dropColumn('date_of_birth_encrypted');
  });
}
