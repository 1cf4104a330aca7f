/**
 * The reminder of a pay-later promise the day before its date (docs/api.md section 18 "Pay
 * later"): `payment_promises.reminder_communication_id` is the one communication that reminded
 * the customer (set in the transaction that made it, so a promise is reminded once), and
 * `reminder_next_at` when the worker looks at it again after the contact rules held it back
 * (null: as soon as the day before begins). Adds nullable columns only: no row is rewritten; old
 * promises are reminded if their day before is still to come.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_promises', (t) => {
    t.text('reminder_communication_id').references('communications.id');
    t.timestamp('reminder_next_at', { useTz: true });
  });
  await knex.raw(
    `CREATE UNIQUE INDEX payment_promises_reminder_once ON payment_promises (reminder_communication_id) WHERE reminder_communication_id IS NOT NULL`,
  );
  // The worker's claim walks the active promises still to remind, by date.
  await knex.raw(`CREATE INDEX payment_promises_to_remind ON payment_promises (pay_on) WHERE status = 'active' AND reminder_communication_id IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX payment_promises_to_remind');
  await knex.raw('DROP INDEX payment_promises_reminder_once');
  await knex.schema.alterTable('payment_promises', (t) => {
    t.dropColumn('reminder_next_at');
    t.dropColumn('reminder_communication_id');
  });
}
