/**
 * Test mode (docs/api.md section 15): every live tenant may have one paired test-mode tenant, which
 * its test clients belong to. Test data lives under the test tenant's id, so every tenant-scoped
 * query keeps test and live data apart without a filter of its own, and an object's `livemode` is
 * its tenant's. Only a test tenant's clock may run ahead (`clock_offset_seconds`, migration 025).
 * Existing tenants are live (`livemode` true, no live tenant); a live tenant's clock is the
 * database's, so an offset one of them was given by hand before this migration (no API could set
 * it) is reset to 0.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE tenants SET clock_offset_seconds = 0 WHERE clock_offset_seconds <> 0`);
  await knex.raw(`
    ALTER TABLE tenants
      ADD COLUMN livemode boolean NOT NULL DEFAULT true,
      ADD COLUMN live_tenant_id text UNIQUE REFERENCES tenants (id),
      ADD CONSTRAINT tenants_test_pair CHECK (livemode = (live_tenant_id IS NULL)),
      ADD CONSTRAINT tenants_live_clock CHECK (NOT livemode OR clock_offset_seconds = 0)`);
  // The worker bounds its claims of due work by the clock furthest ahead (services/worker): only
  // advanced test tenants are in this index, so reading that bound costs nothing with none.
  await knex.raw(`CREATE INDEX tenants_clock_ahead ON tenants (clock_offset_seconds) WHERE clock_offset_seconds > 0`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM tenants WHERE NOT livemode`);
  await knex.raw(`DROP INDEX tenants_clock_ahead`);
  await knex.raw(`ALTER TABLE tenants DROP CONSTRAINT tenants_live_clock, DROP CONSTRAINT tenants_test_pair, DROP COLUMN live_tenant_id, DROP COLUMN livemode`);
}
