/**
 * Plans paid by a saved payment method (docs/api.md section 18 "Plans with a saved card"):
 * `payment_plans` gains the method the worker charges (its provider, the provider's reference and
 * a label such as `card ending 4242`, never a card number) and `authority_canceled_at`, set when
 * the customer cancels the continuous payment authority. `instalment_charges` records each
 * instalment charged (one row per plan, sequence and due date: a unique key, so an instalment is
 * charged once on its date however many workers run; a delayed one again on its new date) with the provider's answer (`outcome`: null while charging, then `succeeded`, `failed` or
 * `pending`) and the payment that recorded it. Existing plans keep null columns:
 * they have no saved method and the worker never charges them.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_plans', (t) => {
    t.text('payment_method_provider');
    t.text('payment_method_reference');
    t.text('payment_method_label');
    t.timestamp('authority_canceled_at', { useTz: true });
  });
  await knex.schema.createTable('instalment_charges', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('payment_plan_id').notNullable().references('payment_plans.id');
    t.integer('sequence').notNullable();
    t.date('due_on').notNullable();
    t.text('payment_id');
    t.text('outcome');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['payment_plan_id', 'sequence', 'due_on']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('instalment_charges');
  await knex.schema.alterTable('payment_plans', (t) => {
    t.dropColumns('payment_method_provider', 'payment_method_reference', 'payment_method_label', 'authority_canceled_at');
  });
}
