/**
 * Webhooks (docs/api.md section 7): endpoints, the delivery queue and its attempt log.
 *
 * - `webhook_endpoints`: a tenant's receivers. Soft-deleted (`deleted_at`) so the delivery history
 *   of a deleted endpoint stays consistent while a dispatcher may still hold one of its deliveries.
 * - `webhook_deliveries`: one row per (event, endpoint), created by a trigger on `events` in the
 *   same transaction as the event (the outbox fans out atomically: an event that commits has its
 *   deliveries, one that rolls back has none, and no dispatcher-side cursor can skip a row whose
 *   sequence number was taken by a transaction that committed late). The row is also the queue
 *   entry: `status = 'pending'` and `next_attempt_at <= now()` means due; a dispatcher claims a row
 *   by moving `next_attempt_at` forward by its lease (visibility timeout) and setting
 *   `lease_token`, so a dispatcher that dies mid-delivery loses the row to another once the lease
 *   runs out.
 * - `webhook_delivery_attempts`: every attempt, keyed by (delivery, attempt number), so two
 *   dispatchers can never both record the same attempt.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('url').notNullable();
    t.text('version').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.specificType('enabled_events', 'text[]').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    // AES-256-GCM ciphertexts (libs/secrets); plain secrets never touch the database.
    t.text('signing_secret_ciphertext').notNullable();
    t.text('oauth2_token_url');
    t.text('oauth2_client_id');
    t.text('oauth2_client_secret_ciphertext');
    // Bumped whenever the credentials change: dispatchers key their token cache by it.
    t.integer('credentials_version').notNullable().defaultTo(0);
    t.timestamp('last_success_at', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE webhook_endpoints ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
  await knex.raw(`CREATE INDEX webhook_endpoints_list ON webhook_endpoints (tenant_id, seq) WHERE deleted_at IS NULL`);

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id');
    t.text('event_id').notNullable().references('events.id');
    t.text('event_type').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempt_count').notNullable().defaultTo(0);
    // While pending: when the next attempt is due (or, while claimed, when the lease runs out).
    t.timestamp('next_attempt_at', { useTz: true });
    t.uuid('lease_token');
    t.integer('last_response_status');
    t.text('last_error');
    t.integer('last_duration_ms');
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['event_id', 'endpoint_id']);
  });
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled'))`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
  await knex.raw(`CREATE INDEX webhook_deliveries_list ON webhook_deliveries (endpoint_id, seq)`);
  // The queue: only pending rows are indexed, so the index stays as small as the backlog.
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);

  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.text('delivery_id').notNullable().references('webhook_deliveries.id');
    t.integer('attempt').notNullable();
    t.text('status').notNullable();
    t.integer('response_status');
    t.text('error');
    t.integer('duration_ms');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('next_attempt_at', { useTz: true });
    t.primary(['delivery_id', 'attempt']);
  });
  await knex.raw(`ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_status CHECK (status IN ('succeeded', 'failed'))`);

  // Endpoints that receive a tenant's events: found by the fan-out trigger on every event insert.
  await knex.raw(`CREATE INDEX webhook_endpoints_active ON webhook_endpoints (tenant_id) WHERE enabled AND deleted_at IS NULL`);
  // Delivery ids follow @dms/ids: `del_` + 24 uniformly random base62 characters (gen_random_bytes
  // is in pgcrypto, which is not guaranteed; gen_random_uuid() is core since PostgreSQL 13).
  await knex.raw(`
    CREATE FUNCTION random_base62_id(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
      bytes bytea := decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');
      out text := prefix || '_';
      b int;
      i int := 0;
    BEGIN
      WHILE length(out) < length(prefix) + 25 LOOP
        IF i >= length(bytes) THEN
          bytes := decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');
          i := 0;
        END IF;
        b := get_byte(bytes, i);
        i := i + 1;
        -- 248 = 4 * 62: higher bytes are rejected so each character is uniform.
        IF b < 248 THEN out := out || substr(alphabet, (b % 62) + 1, 1); END IF;
      END LOOP;
      RETURN out;
    END $$`);
  // The first fan-out rule (history, run as written; the rule in force is webhook-fan-out.ts).
  await knex.raw(`
    CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, next_attempt_at)
      SELECT random_base62_id('del'), NEW.tenant_id, e.id, NEW.id, NEW.type, now()
      FROM webhook_endpoints e
      WHERE e.tenant_id = NEW.tenant_id AND e.enabled AND e.deleted_at IS NULL
        AND ('*' = ANY (e.enabled_events) OR NEW.type = ANY (e.enabled_events));
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()`);

  // Maintained totals (X-Total-Count) like 001_core: endpoints per tenant, deliveries per endpoint.
  await knex.raw(`
    CREATE FUNCTION webhook_endpoints_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        PERFORM bump_list_counter(OLD.tenant_id, 'webhook_endpoints', '', -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        PERFORM bump_list_counter(NEW.tenant_id, 'webhook_endpoints', '', 1);
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER webhook_endpoints_count AFTER INSERT OR DELETE OR UPDATE OF deleted_at ON webhook_endpoints
    FOR EACH ROW EXECUTE FUNCTION webhook_endpoints_count()`);
  await knex.raw(`
    CREATE FUNCTION webhook_deliveries_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN PERFORM bump_list_counter(NEW.tenant_id, 'webhook_deliveries', NEW.endpoint_id, 1);
      ELSE PERFORM bump_list_counter(OLD.tenant_id, 'webhook_deliveries', OLD.endpoint_id, -1); END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER webhook_deliveries_count AFTER INSERT OR DELETE ON webhook_deliveries
    FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_count()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS events_webhook_fan_out ON events');
  for (const t of ['webhook_delivery_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
    await knex.schema.dropTableIfExists(t);
  }
  await knex.raw('DROP FUNCTION IF EXISTS webhook_fan_out, random_base62_id, webhook_endpoints_count, webhook_deliveries_count');
}
