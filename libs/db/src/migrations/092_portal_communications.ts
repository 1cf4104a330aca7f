/**
 * Communications the customer sends from the portal (docs/api.md sections 13 and 18): an inbound
 * communication's `delivery_method` may be `portal` (a dispute or question written on the
 * customer's own account). Nothing existing changes: the CHECK only widens.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE communications
      DROP CONSTRAINT communications_delivery_method_check,
      ADD CONSTRAINT communications_delivery_method_check CHECK (delivery_method IN ('email', 'sms', 'letter', 'portal'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE communications
      DROP CONSTRAINT communications_delivery_method_check,
      ADD CONSTRAINT communications_delivery_method_check CHECK (delivery_method IN ('email', 'sms', 'letter'))`);
}
