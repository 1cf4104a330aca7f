/**
 * Indexes behind the payment plan parts of docs/api.md section 10, for tenants with millions of
 * debts and payments:
 *
 * - the debt search field `payment_plan.status` (an `EXISTS` subquery on the debt's plans):
 *   `(tenant_id, status, debt_id)`, so a rare status is found from the plans' side (the debts
 *   with such a plan, by an index-only scan) rather than by probing every debt's plans;
 * - `expand[]=line_items` of invoices (and the line item ids every invoice shows):
 *   `(invoice_id, seq)` on the line items that belong to an invoice;
 * - `expand[]=payments` of payment plans: `(payment_plan_id, seq)` on the payments made to a plan.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX payment_plans_search_status ON payment_plans (tenant_id, status, debt_id)');
  await knex.raw('CREATE INDEX line_items_invoice_list ON line_items (invoice_id, seq) WHERE invoice_id IS NOT NULL');
  await knex.raw('CREATE INDEX payments_plan_list ON payments (payment_plan_id, seq) WHERE payment_plan_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS payment_plans_search_status, line_items_invoice_list, payments_plan_list');
}
