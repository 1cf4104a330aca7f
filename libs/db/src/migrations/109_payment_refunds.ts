/**
 * Refunds at payment providers (docs/api.md sections 8 and 18 "Payments"): `payment_refunds`, one
 * row per refund a provider accepted for a payment of one of our providers (`rfd_…`), written in
 * the transaction that moves the ledger: the tenant, the payment and its debt, `amount` (minor
 * units, > 0) in `currency`, the `provider` and its refund's `provider_reference` (unique per
 * provider), and `status` `succeeded` | `pending` | `failed`. Like every tenant table it carries
 * `tenant_id` (a test-mode tenant's refunds live under its own id, migration 050).
 * A new table only: no existing row is read or written.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
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
}
