/**
 * The customer portal (docs/api.md section 18):
 * - `portal_links`: one row per link handed to a customer; only the SHA-256 hash of its token is
 *   stored (`token_hash`, unique), bound to its tenant and customer (and communication when the
 *   engine made it); `failed_attempts` and `locked_until` carry the lockout after five wrong answers.
 * - `portal_sessions`: the server-side sessions of connect-pg-simple (its documented table shape).
 * New tables only: no existing row is read or written.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('portal_links', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('mode').notNullable();
    t.text('customer_id').notNullable().references('customers.id');
    t.text('debt_id');
    t.text('communication_id');
    t.specificType('token_hash', 'bytea').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.integer('failed_attempts').notNullable().defaultTo(0);
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id', 'customer_id']);
    t.index(['communication_id']);
  });
  await knex.raw(`ALTER TABLE portal_links ADD CONSTRAINT portal_links_mode CHECK (mode IN ('test', 'live'))`);
  await knex.raw(`
    CREATE TABLE portal_sessions (
      sid varchar NOT NULL PRIMARY KEY,
      sess json NOT NULL,
      expire timestamp(6) NOT NULL
    )`);
  await knex.raw(`CREATE INDEX portal_sessions_expire ON portal_sessions (expire)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('portal_sessions');
  await knex.schema.dropTable('portal_links');
}
