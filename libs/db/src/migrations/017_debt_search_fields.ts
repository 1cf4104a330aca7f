/**
 * Indexes behind the debt search fields of docs/api.md section 10, in the manner of
 * 003_search_indexes (tenants with a million debts):
 *
 * - `kind` (equality): `(tenant_id, kind, seq)`, so a filtered page stays an ordered index range;
 * - `amount` (= `amount_total`, all comparisons): `(tenant_id, amount_total)`;
 * - `metadata['key']` (equality, `metadata @> {"key": "value"}`): a GIN index with
 *   `jsonb_path_ops`, which serves containment only and is a fraction of the default GIN's size;
 * - `customer.email` needs none here: the addresses are found through `contact_details_email`
 *   (015_contact_details), then the debts through `debts_customer` (001_core).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX debts_search_kind ON debts (tenant_id, kind, seq)');
  await knex.raw('CREATE INDEX debts_search_amount_total ON debts (tenant_id, amount_total)');
  await knex.raw('CREATE INDEX debts_search_metadata ON debts USING gin (metadata jsonb_path_ops)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_search_kind, debts_search_amount_total, debts_search_metadata');
}
