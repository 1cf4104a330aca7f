/**
 * Contact details become objects of their own (docs/api.md section 10): `customer_contact_details`,
 * one row per detail, instead of the `customers.contact_details` JSON array.
 *
 * - Existing embedded details are moved into rows in the order they were listed (so `seq`, and
 *   with it the order of the list and of the embedded array, stays theirs). Old `usage` values
 *   `personal` and `other` become `permanent`; an address given as one string becomes
 *   `{line_1: <string>}` with the other lines null. Where an array held several primaries of one
 *   type, the first stays primary (at most one primary per type from now on).
 * - Values are copied as they were: validation and E.164 normalisation apply to writes from now on.
 * - Indexes: the list of a customer's visible details `(customer_id, seq)`; at most one primary per
 *   type (a partial unique index, the safety net behind the demotion done under a lock); e-mail
 *   search by `lower(value)` (customer `email` and debt `customer.email`, docs/api.md section 10),
 *   replacing the GIN index on `customer_emails(contact_details)` of 003_search_indexes.
 * - The list total (`X-Total-Count`) is a maintained counter like every list (001_core, 007).
 */
import type { Knex } from 'knex';

const VISIBLE = (r: string) => `${r}.status <> 'deleted'`;

// 24 base62-looking characters from a random UUID, hashed: unguessable like @dms/ids' ids.
const NEW_ID = `'cd_' || translate(left(encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'base64'), 24), '+/', 'Qz')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE customer_contact_details (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      customer_id text NOT NULL REFERENCES customers(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      type text NOT NULL,
      value text,
      address jsonb,
      "primary" boolean NOT NULL DEFAULT false,
      usage text,
      source text NOT NULL DEFAULT 'client',
      status text NOT NULL DEFAULT 'unverified',
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((type = 'address') = (address IS NOT NULL AND value IS NULL))
    )`);

  await knex.raw(`
    INSERT INTO customer_contact_details (id, tenant_id, customer_id, type, value, address, "primary", usage, created_at, updated_at)
    SELECT ${NEW_ID}, c.tenant_id, c.id, d.e->>'type',
           CASE WHEN d.e->>'type' <> 'address' THEN d.e->>'value' END,
           CASE WHEN d.e->>'type' = 'address' THEN jsonb_build_object('line_1', d.e->>'value', 'line_2', NULL, 'city', NULL, 'county', NULL, 'postal_code', NULL, 'country', NULL) END,
           coalesce((d.e->>'primary')::boolean, false)
             AND d.ord = min(d.ord) FILTER (WHERE coalesce((d.e->>'primary')::boolean, false)) OVER (PARTITION BY c.id, d.e->>'type'),
           CASE d.e->>'usage' WHEN 'personal' THEN 'permanent' WHEN 'other' THEN 'permanent' ELSE d.e->>'usage' END,
           c.created_at, c.updated_at
    FROM customers c CROSS JOIN LATERAL jsonb_array_elements(c.contact_details) WITH ORDINALITY AS d(e, ord)
    ORDER BY c.seq, d.ord`);

  await knex.raw(`CREATE INDEX contact_details_list ON customer_contact_details (customer_id, seq) WHERE ${VISIBLE('customer_contact_details')}`);
  await knex.raw(
    `CREATE UNIQUE INDEX contact_details_one_primary ON customer_contact_details (customer_id, type) WHERE "primary" AND ${VISIBLE('customer_contact_details')}`,
  );
  await knex.raw(
    `CREATE INDEX contact_details_email ON customer_contact_details (lower(value)) WHERE type = 'email' AND ${VISIBLE('customer_contact_details')}`,
  );

  await knex.raw(`
    CREATE FUNCTION customer_contact_details_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (${VISIBLE('OLD')}) = (${VISIBLE('NEW')}) THEN RETURN NULL; END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') AND (${VISIBLE('OLD')}) THEN
        PERFORM bump_list_counter(OLD.tenant_id, 'contact_details', OLD.customer_id, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND (${VISIBLE('NEW')}) THEN
        PERFORM bump_list_counter(NEW.tenant_id, 'contact_details', NEW.customer_id, 1);
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER customer_contact_details_count AFTER INSERT OR DELETE OR UPDATE OF status ON customer_contact_details
    FOR EACH ROW EXECUTE FUNCTION customer_contact_details_count()`);
  await knex.raw(`
    INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
    SELECT tenant_id, 'contact_details', customer_id, 0, count(*) FROM customer_contact_details GROUP BY tenant_id, customer_id`);

  await knex.raw('DROP INDEX IF EXISTS customers_search_email');
  await knex.raw('ALTER TABLE customers DROP COLUMN contact_details');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE customers ADD COLUMN contact_details jsonb NOT NULL DEFAULT '[]'`);
  await knex.raw(`
    UPDATE customers c SET contact_details = d.list
    FROM (
      SELECT customer_id, jsonb_agg(jsonb_build_object(
               'type', type, 'value', coalesce(value, address->>'line_1'), 'primary', "primary",
               'usage', CASE usage WHEN 'permanent' THEN 'personal' WHEN 'work' THEN 'work' WHEN 'billing' THEN 'billing' WHEN NULL THEN NULL ELSE 'other' END)
             ORDER BY seq) AS list
      FROM customer_contact_details WHERE status <> 'deleted' AND type <> 'fax_number' GROUP BY customer_id
    ) d WHERE d.customer_id = c.id`);
  await knex.raw('CREATE INDEX customers_search_email ON customers USING gin (customer_emails(contact_details))');
  await knex.raw(`DELETE FROM list_counters WHERE list = 'contact_details'`);
  await knex.raw('DROP TABLE customer_contact_details');
  await knex.raw('DROP FUNCTION customer_contact_details_count()');
}
