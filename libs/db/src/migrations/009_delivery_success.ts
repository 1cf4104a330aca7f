/**
 * "Did any delivery to this endpoint succeed since T?" answered from the deliveries themselves.
 *
 * The dispatcher used to stamp `webhook_endpoints.last_success_at` inside every successful
 * attempt's transaction, so all attempts to one endpoint queued on that row's lock until each
 * COMMIT (BENCHMARKS.md: ~150 deliveries/s, no gain from a second dispatcher). Disabling an
 * endpoint after a failed schedule now asks `webhook_deliveries` instead (a succeeded delivery's
 * `updated_at` is when its success was recorded: nothing updates it afterwards); this partial
 * index makes that one index probe, and costs one entry per succeeded delivery.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX webhook_deliveries_succeeded ON webhook_deliveries (endpoint_id, updated_at) WHERE status = 'succeeded'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_succeeded');
}
