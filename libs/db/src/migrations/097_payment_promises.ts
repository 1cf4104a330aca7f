/**
 * Pay later (docs/api.md section 18 "Pay later"): `payment_promises`, a customer's promise to pay
 * `amount` (minor units) of a debt on `pay_on`, with the saved method the worker charges that day
 * (provider, reference, label; never a card number). `status` is `active` until the worker charges
 * it (`kept` or `broken`, `payment_id` the payment recorded).
 * A new table only: no existing row is read or written.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_promises', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.text('customer_id').notNullable().references('customers.id');
    t.bigInteger('amount').notNullable();
    t.text('currency').notNullable();
    t.date('pay_on').notNullable();
    t.text('payment_method_provider').notNullable();
    t.text('payment_method_reference').notNullable();
    t.text('payment_method_label').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('payment_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id', 'debt_id']);
  });
  await knex.raw(`ALTER TABLE payment_promises ADD CONSTRAINT payment_promises_status CHECK (status IN ('active', 'kept', 'broken'))`);
  await knex.raw(`CREATE INDEX payment_promises_due ON payment_promises (pay_on) WHERE status = 'active'`);
  await knex.raw(`CREATE UNIQUE INDEX payment_promises_one_active ON payment_promises (debt_id) WHERE status = 'active'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_promises');
}
