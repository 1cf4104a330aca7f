/**
 * Webhook operations (docs/api.md section 11).
 *
 * - `webhook_endpoints.previous_signing_secret_*`: after `rotate_secret`, the replaced secret
 *   (sealed) and until when deliveries are also signed with it (24 h), so receivers can switch
 *   secrets without rejecting a delivery.
 * - `webhook_deliveries.schedule_base`: attempts made before the current retry schedule began. A
 *   requeue (retry, recover, re-enable) sets it to `attempt_count`, so the dispatcher counts the
 *   schedule from there while attempt numbers (the attempt log's key) keep growing.
 * - The fan-out trigger leaves `webhook.test` events alone: a test event is delivered to the one
 *   endpoint it tests, never to others that subscribe to `*`.
 */
import type { Knex } from 'knex';

/**
 * The fan-out trigger function of 004_webhooks with `created_at`, and with the `webhook.test`
 * exception unless going back. History, run as written: the rule in force is webhook-fan-out.ts.
 */
function fanOutFunction(skipTestEvents: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${skipTestEvents ? `IF NEW.type = 'webhook.test' THEN RETURN NULL; END IF;` : ''}
      INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, next_attempt_at, created_at)
      SELECT random_base62_id('del'), NEW.tenant_id, e.id, NEW.id, NEW.type, now(), NEW.created_at
      FROM webhook_endpoints e
      WHERE e.tenant_id = NEW.tenant_id AND e.enabled AND e.deleted_at IS NULL
        AND ('*' = ANY (e.enabled_events) OR NEW.type = ANY (e.enabled_events));
      RETURN NULL;
    END $$`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints
      ADD COLUMN previous_signing_secret_ciphertext text,
      ADD COLUMN previous_signing_secret_expires_at timestamptz`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD COLUMN schedule_base integer NOT NULL DEFAULT 0`);
  await knex.raw(fanOutFunction(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(fanOutFunction(false));
  await knex.raw(`ALTER TABLE webhook_deliveries DROP COLUMN schedule_base`);
  await knex.raw(`ALTER TABLE webhook_endpoints DROP COLUMN previous_signing_secret_ciphertext, DROP COLUMN previous_signing_secret_expires_at`);
}
