/**
 * Fields the public API's clients send (docs/api.md section 15), stored beside ours: organisation
 * `internal_name`, `industry`, `logo`, `payment_options_configuration`; debt `originator`,
 * `configurations`; tenant `configurations`, `metadata`. Each object-valued column holds a value
 * its schema validated (libs/domain); existing rows get the empty value.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE organisations
      ADD COLUMN internal_name text,
      ADD COLUMN industry text,
      ADD COLUMN logo text,
      ADD COLUMN payment_options_configuration jsonb NOT NULL DEFAULT '{}'`);
  await knex.raw(`ALTER TABLE debts ADD COLUMN originator text, ADD COLUMN configurations jsonb NOT NULL DEFAULT '{}'`);
  await knex.raw(`ALTER TABLE tenants ADD COLUMN configurations jsonb NOT NULL DEFAULT '{}', ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants DROP COLUMN configurations, DROP COLUMN metadata');
  await knex.raw('ALTER TABLE debts DROP COLUMN originator, DROP COLUMN configurations');
  await knex.raw('ALTER TABLE organisations DROP COLUMN internal_name, DROP COLUMN industry, DROP COLUMN logo, DROP COLUMN payment_options_configuration');
}
