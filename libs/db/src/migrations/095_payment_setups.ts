/**
 * Checkouts that save a payment method (docs/api.md section 18 "Plans with a saved card"):
 * `payment_setups` keeps what the customer chose on the portal (a plan's terms or a pay-later
 * date, `terms` jsonb) under the provider's checkout reference until the provider's verified
 * outcome arrives; then the plan or promise is made and `result_id` names it. Never a card number.
 * A new table only: no existing row is read or written.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_setups', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.text('customer_id').notNullable().references('customers.id');
    t.text('kind').notNullable();
    t.jsonb('terms').notNullable();
    t.bigInteger('amount').notNullable();
    t.text('currency').notNullable();
    t.text('provider').notNullable();
    t.text('checkout_reference').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.text('result_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider', 'checkout_reference']);
    t.index(['tenant_id', 'debt_id']);
  });
  await knex.raw(`ALTER TABLE payment_setups ADD CONSTRAINT payment_setups_kind CHECK (kind IN ('plan', 'promise'))`);
  await knex.raw(`ALTER TABLE payment_setups ADD CONSTRAINT payment_setups_status CHECK (status IN ('open', 'completed', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_setups');
}
