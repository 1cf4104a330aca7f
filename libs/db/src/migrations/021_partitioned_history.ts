/**
 * Bounded storage (docs/api.md section 11): `events`, `webhook_deliveries` and
 * `webhook_delivery_attempts` become range-partitioned by creation time (partitions/index.ts), so
 * the retention job drops whole partitions. Existing rows are copied over with their `seq` (list
 * order and cursors unchanged) and the list counters are untouched (the rows are the same).
 *
 * What partitioning demands of the schema:
 * - primary keys and unique constraints include the partition key: events `(id, created_at)`,
 *   deliveries `(id, created_at)` and `(event_id, endpoint_id, created_at)`, attempts
 *   `(delivery_id, attempt, delivery_created_at)`. Ids stay unique in practice (24 random base62
 *   characters), and a delivery's `created_at` is its event's (the fan-out trigger copies it).
 * - foreign keys between these tables are dropped: a partition is dropped with its rows, and the
 *   rows referring to them live in the same time range of the other tables, dropped at the same
 *   time. Attempts carry `delivery_created_at` for that. References to `tenants` and
 *   `webhook_endpoints` (not partitioned) stay.
 * - the row triggers (fan-out, list counters) are created on the partitioned tables again, with
 *   their functions as they were (the fan-out's is 020_webhook_operations').
 */
import type { Knex } from 'knex';
import { createPartitionsUntil, floorTo } from '../partitions/index.js';

const DAY = 86_400;
/** Partitions the migration creates ahead of today (the job keeps this runway afterwards). */
const AHEAD_DAYS = 7;
const TABLES = ['events', 'webhook_deliveries', 'webhook_delivery_attempts'];

async function renameAside(knex: Knex, table: string): Promise<void> {
  await knex.raw(`ALTER TABLE ?? RENAME TO ??`, [table, `${table}_unpartitioned`]);
  const { rows } = await knex.raw(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?`, [`${table}_unpartitioned`]);
  for (const { indexname } of rows as Array<{ indexname: string }>) await knex.raw(`ALTER INDEX ?? RENAME TO ??`, [indexname, `${indexname}_unpartitioned`]);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER events_webhook_fan_out ON events');
  await knex.raw('DROP TRIGGER events_count ON events');
  await knex.raw('DROP TRIGGER webhook_deliveries_count ON webhook_deliveries');
  for (const t of TABLES) await renameAside(knex, t);

  await knex.raw(`
    CREATE TABLE events (
      id text NOT NULL,
      tenant_id text NOT NULL REFERENCES tenants (id),
      type text NOT NULL,
      api_version text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      PRIMARY KEY (id, created_at)
    ) PARTITION BY RANGE (created_at)`);
  await knex.raw(`CREATE INDEX events_list ON events (tenant_id, seq)`);

  await knex.raw(`
    CREATE TABLE webhook_deliveries (
      id text NOT NULL,
      tenant_id text NOT NULL REFERENCES tenants (id),
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id),
      event_id text NOT NULL,
      event_type text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
      attempt_count integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      lease_token uuid,
      last_response_status integer,
      last_error text,
      last_duration_ms integer,
      last_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      schedule_base integer NOT NULL DEFAULT 0,
      PRIMARY KEY (id, created_at),
      UNIQUE (event_id, endpoint_id, created_at)
    ) PARTITION BY RANGE (created_at)`);
  await knex.raw(`CREATE INDEX webhook_deliveries_list ON webhook_deliveries (endpoint_id, seq)`);
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  await knex.raw(`CREATE INDEX webhook_deliveries_succeeded ON webhook_deliveries (endpoint_id, updated_at) WHERE status = 'succeeded'`);

  await knex.raw(`
    CREATE TABLE webhook_delivery_attempts (
      delivery_id text NOT NULL,
      attempt integer NOT NULL,
      status text NOT NULL CONSTRAINT webhook_delivery_attempts_status CHECK (status IN ('succeeded', 'failed')),
      response_status integer,
      error text,
      duration_ms integer,
      started_at timestamptz NOT NULL,
      next_attempt_at timestamptz,
      delivery_created_at timestamptz NOT NULL,
      PRIMARY KEY (delivery_id, attempt, delivery_created_at)
    ) PARTITION BY RANGE (delivery_created_at)`);

  // Existing rows go into one partition up to today (dropped whole once today has left the
  // retention window; one per day would mean hundreds of tables for an old database); from today
  // on, one partition per day, a week ahead.
  const { rows } = await knex.raw(`SELECT min(created_at) AS oldest FROM events_unpartitioned`);
  const today = floorTo(new Date(), DAY);
  const oldest = floorTo((rows[0].oldest as Date | null) ?? today, DAY);
  if (oldest < today) await createPartitionsUntil(knex, oldest, today, (today.getTime() - oldest.getTime()) / 1000);
  await createPartitionsUntil(knex, today, new Date(today.getTime() + AHEAD_DAYS * DAY * 1000), DAY);

  // Rows are copied as they are, `seq` included, so lists keep their order and cursors.
  await knex.raw(`INSERT INTO events OVERRIDING SYSTEM VALUE SELECT id, tenant_id, type, api_version, data, created_at, seq FROM events_unpartitioned`);
  await knex.raw(`
    INSERT INTO webhook_deliveries OVERRIDING SYSTEM VALUE
    SELECT id, tenant_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, lease_token, last_response_status,
           last_error, last_duration_ms, last_attempt_at, created_at, updated_at, seq, schedule_base
      FROM webhook_deliveries_unpartitioned`);
  await knex.raw(`
    INSERT INTO webhook_delivery_attempts
    SELECT a.delivery_id, a.attempt, a.status, a.response_status, a.error, a.duration_ms, a.started_at, a.next_attempt_at, d.created_at
      FROM webhook_delivery_attempts_unpartitioned a JOIN webhook_deliveries_unpartitioned d ON d.id = a.delivery_id`);
  for (const t of ['events', 'webhook_deliveries']) {
    await knex.raw(`SELECT setval(pg_get_serial_sequence(?, 'seq'), coalesce((SELECT max(seq) FROM ??), 0) + 1, false)`, [t, t]);
  }
  for (const t of TABLES.slice().reverse()) await knex.raw(`DROP TABLE ??`, [`${t}_unpartitioned`]);

  await knex.raw(`CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()`);
  await knex.raw(`CREATE TRIGGER events_count AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_count()`);
  await knex.raw(
    `CREATE TRIGGER webhook_deliveries_count AFTER INSERT OR DELETE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_count()`,
  );
}

export async function down(): Promise<void> {
  // Going back would rewrite every history table into one heap; restore a backup instead.
  throw new Error('021_partitioned_history cannot be reverted');
}
