/**
 * Who made a payment plan's latest change (docs/api.md section 9, "Payment plans"): `payment_plans`
 * gains `whodunnit` (the tenant's client id, `operator:<client id>`, `customer:<cus_id>` or
 * `system`, as a debt's `status_whodunnit`) and `source` (`api`, `portal` or `worker`), written
 * with every plan change so each `payment_plan.*` event carries its actor. Existing plans keep
 * null columns: their last change was not recorded. Adds nullable columns: no row is rewritten.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE payment_plans ADD COLUMN whodunnit text, ADD COLUMN source text');
  await knex.raw("ALTER TABLE payment_plans ADD CONSTRAINT payment_plans_source CHECK (source IN ('api', 'portal', 'worker'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE payment_plans DROP CONSTRAINT payment_plans_source, DROP COLUMN source, DROP COLUMN whodunnit');
}
