/**
 * Two foundations of docs/api.md sections 12 to 15:
 * - `tenants.clock_offset_seconds` and `tenant_now(tenant)`: the moment a tenant's time-driven work
 *   (plans, pauses, strategies, payouts) is decided at. It is the database clock for every live
 *   tenant; a test-mode tenant may move its own clock forward (section 15). Every claim of due work
 *   compares against `tenant_now(<row>.tenant_id)`, so one tenant's clock never moves another's.
 * - `organisations.configurations`: the organisation's settings in the public API's shape (its
 *   collection strategy, its payouts), validated by a schema per key.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE tenants ADD COLUMN clock_offset_seconds bigint NOT NULL DEFAULT 0 CHECK (clock_offset_seconds >= 0)`);
  await knex.raw(`
    CREATE FUNCTION tenant_now(p_tenant text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
      SELECT now() + make_interval(secs => coalesce((SELECT clock_offset_seconds FROM tenants WHERE id = p_tenant), 0))
    $$`);
  await knex.raw(`ALTER TABLE organisations ADD COLUMN configurations jsonb NOT NULL DEFAULT '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE organisations DROP COLUMN configurations');
  await knex.raw('DROP FUNCTION tenant_now(text)');
  await knex.raw('ALTER TABLE tenants DROP COLUMN clock_offset_seconds');
}
