/**
 * Refunds at payment providers (docs/api.md sections 8 and 18 "Payments"): `payment_refunds`, one
 * row per refund a provider accepted for a payment of one of our providers (`rfd_…`), written in
 * the transaction that moves the ledger: the tenant, the payment and its debt, `amount` (minor
 * units, > 0) in `currency`, the `provider` and its refund's `provider_reference` (unique per
 * provider), and `status` `succeeded` | `pending` | `failed`. Like every tenant table it carries
 * `tenant_id` (a test-mode tenant's refunds live under its own id, migration 050).
 *
 * `payments.provider_managed`: true only for a payment the platform itself took through its
 * provider (the portal's checkout, the worker's charges), set by the domain and never by an API
 * body; only such a payment is refunded at the provider and moved by its callbacks. A constant
 * default (no table rewrite, no row read): every existing payment is `false`, refunded in the
 * ledger only as before (its `payment_provider` is free text a tenant may have written).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.boolean('provider_managed').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('payment_refunds', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('payment_id').notNullable().references('payments.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.bigInteger('amount').notNullable();
    t.text('currency').notNullable();
    t.text('provider').notNullable();
    t.text('provider_reference').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider', 'provider_reference']);
    t.index(['tenant_id', 'payment_id']);
  });
  await knex.raw(`ALTER TABLE payment_refunds ADD CONSTRAINT payment_refunds_amount CHECK (amount > 0)`);
  await knex.raw(`ALTER TABLE payment_refunds ADD CONSTRAINT payment_refunds_status CHECK (status IN ('succeeded', 'pending', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_refunds');
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('provider_managed');
  });
}
