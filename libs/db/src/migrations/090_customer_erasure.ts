/**
 * Erasure of a customer (docs/api.md section 20, "Erasure"; GDPR Article 17): `customers.erased_at`
 * (when the personal fields were replaced by the marker; null while they are held) and
 * `customers.erasure_reason` (why: the tenant's or operator's reason, or `retention`). A second
 * erasure of an erased customer changes nothing.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE customers ADD COLUMN erased_at timestamptz, ADD COLUMN erasure_reason text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE customers DROP COLUMN erased_at, DROP COLUMN erasure_reason');
}
