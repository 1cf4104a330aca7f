/**
 * Sharded list counters: concurrent writes of one tenant no longer queue on one counter row.
 *
 * 001_core keeps each list's total in one `list_counters` row, bumped by row triggers inside the
 * writing transaction; that row stays locked until COMMIT (WAL flush included), so every
 * concurrent insert of a tenant (and every event, through the `events` counter) waited for the
 * previous one (BENCHMARKS.md, tools/src/bench/FINDINGS.md). Each list now has up to
 * `COUNTER_SHARDS` rows, and a bump goes to shard `pg_backend_pid() % COUNTER_SHARDS`: a pooled
 * connection keeps hitting its own row, so concurrent transactions rarely touch the same one.
 * A list's total is the sum of its shards (at most 16 rows by primary key: still O(1) and exact;
 * a single shard may go negative when a row is removed through another connection than the one
 * that added it, the sum stays right).
 */
import type { Knex } from 'knex';

/** Rows per (tenant, list, parent); also in the bump function's SQL below. */
const COUNTER_SHARDS = 16;

const SINGLE_ROW_BUMP = `
  CREATE OR REPLACE FUNCTION bump_list_counter(p_tenant text, p_list text, p_parent text, p_delta bigint) RETURNS void
  LANGUAGE sql AS $$
    INSERT INTO list_counters (tenant_id, list, parent_id, count) VALUES (p_tenant, p_list, p_parent, p_delta)
    ON CONFLICT (tenant_id, list, parent_id) DO UPDATE SET count = list_counters.count + EXCLUDED.count
  $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE list_counters ADD COLUMN shard smallint NOT NULL DEFAULT 0');
  await knex.raw('ALTER TABLE list_counters DROP CONSTRAINT list_counters_pkey');
  await knex.raw('ALTER TABLE list_counters ADD CONSTRAINT list_counters_pkey PRIMARY KEY (tenant_id, list, parent_id, shard)');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION bump_list_counter(p_tenant text, p_list text, p_parent text, p_delta bigint) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
      VALUES (p_tenant, p_list, p_parent, (pg_backend_pid() % ${COUNTER_SHARDS})::smallint, p_delta)
      ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  // Fold every list's shards into shard 0 before the single-row key comes back.
  await knex.raw(`
    WITH moved AS (DELETE FROM list_counters WHERE shard <> 0 RETURNING tenant_id, list, parent_id, count)
    INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
    SELECT tenant_id, list, parent_id, 0, sum(count) FROM moved GROUP BY tenant_id, list, parent_id
    ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count`);
  await knex.raw('ALTER TABLE list_counters DROP CONSTRAINT list_counters_pkey');
  await knex.raw('ALTER TABLE list_counters ADD CONSTRAINT list_counters_pkey PRIMARY KEY (tenant_id, list, parent_id)');
  await knex.raw('ALTER TABLE list_counters DROP COLUMN shard');
  await knex.raw(SINGLE_ROW_BUMP);
}
