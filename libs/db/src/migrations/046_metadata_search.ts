/**
 * `metadata['key']` search on every object that has metadata (docs/api.md section 15): a GIN
 * `jsonb_path_ops` index on each table's `metadata` (containment only, a fraction of a default
 * GIN's size), as debts have had since 017_debt_search_fields. Each resource's search registry
 * names the index serving its field.
 */
import type { Knex } from 'knex';

/** The tables whose `metadata` becomes searchable. */
const TABLES = [
  'customers',
  'payments',
  'invoices',
  'organisations',
  'line_items',
  'payment_plans',
  'customer_contact_details',
  'communication_templates',
  'webhook_endpoints',
];

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`CREATE INDEX ${table}_search_metadata ON ${table} USING gin (metadata jsonb_path_ops)`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`DROP INDEX IF EXISTS ${table}_search_metadata`);
}
