/**
 * A customer's contact preferences (docs/api.md section 10, "Contact preferences"): `customers.contact_preferences`, a JSON object of the channels the customer
 * accepts, the hours they prefer within 08:00-21:00 and their language, or null when they said
 * nothing (every channel, the whole window). Old rows keep null: nothing they accepted changes.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE customers ADD COLUMN contact_preferences jsonb`);
  await knex.raw(`ALTER TABLE customers ADD CONSTRAINT customers_contact_preferences_object
    CHECK (contact_preferences IS NULL OR jsonb_typeof(contact_preferences) = 'object')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE customers DROP COLUMN contact_preferences');
}
