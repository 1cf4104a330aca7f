/**
 * Who read a customer's personal data (docs/api.md section 20, "Access log",
 * "Who read what"): `customer_access_log`, one row per read by an operator token or a portal
 * session: the tenant, the customer, the actor (`operator:<client id>`, `portal:<session>`), the
 * operation, and when. Append-only: the application connects with one role (often the table's
 * owner, to which REVOKE does not apply), so a trigger refuses every UPDATE, DELETE and TRUNCATE.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE customer_access_log (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id text NOT NULL REFERENCES tenants(id),
    customer_id text NOT NULL,
    actor text NOT NULL,
    operation text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw('CREATE INDEX customer_access_log_customer ON customer_access_log (tenant_id, customer_id, seq)');
  await knex.raw(`CREATE FUNCTION customer_access_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'customer_access_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(`CREATE TRIGGER customer_access_log_no_change BEFORE UPDATE OR DELETE ON customer_access_log
    FOR EACH ROW EXECUTE FUNCTION customer_access_log_append_only()`);
  await knex.raw(`CREATE TRIGGER customer_access_log_no_truncate BEFORE TRUNCATE ON customer_access_log
    FOR EACH STATEMENT EXECUTE FUNCTION customer_access_log_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE customer_access_log');
  await knex.raw('DROP FUNCTION customer_access_log_append_only()');
}
