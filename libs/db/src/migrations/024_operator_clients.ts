/**
 * Operator clients (docs/api.md section 12): the platform's own staff and automation hold OAuth
 * clients that belong to no tenant (`kind = 'operator'`, `tenant_id` null) and name the tenant they
 * act for in each request. A tenant client keeps its tenant; the CHECK ties the two together.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE oauth_clients
      ADD COLUMN kind text NOT NULL DEFAULT 'tenant',
      ALTER COLUMN tenant_id DROP NOT NULL,
      ADD CONSTRAINT oauth_clients_kind CHECK (kind IN ('tenant', 'operator')),
      ADD CONSTRAINT oauth_clients_kind_tenant CHECK ((kind = 'tenant') = (tenant_id IS NOT NULL))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM oauth_clients WHERE kind = 'operator'`);
  await knex.raw(`
    ALTER TABLE oauth_clients
      DROP CONSTRAINT oauth_clients_kind_tenant,
      DROP CONSTRAINT oauth_clients_kind,
      ALTER COLUMN tenant_id SET NOT NULL,
      DROP COLUMN kind`);
}
