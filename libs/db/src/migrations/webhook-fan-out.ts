/**
 * The webhook fan-out rule (docs/api.md section 7), in one place: an event inserted into `events`
 * becomes, in the same transaction, one pending delivery due at once for each endpoint of the
 * event's tenant that is enabled, not deleted, and subscribed to the event's type or to `*`. The
 * delivery carries the event's `created_at`, so both rows fall in the same partition
 * (021_partitioned_history). A `webhook.test` event reaches nobody this way: `POST
 * /webhooks/{id}/test` makes the one delivery it sends. Test and live data are apart by tenant (a
 * test-mode tenant is a tenant of its own, 050_test_mode), so a test event reaches test endpoints
 * only.
 *
 * A migration that changes the rule edits this module and calls `installWebhookFanOut` (as
 * 079_webhook_fan_out does; on a new database 079 then installs the new text at once, so the rule
 * may use only what exists from 079 on). The migrations before 079 keep the rule as it stood when
 * they were written (004 made it, 020 added the `webhook.test` exception and `created_at`): they
 * are history, run as they are on a new database before 079 replaces their rule with this one.
 * test/migrations/webhook-fan-out.test.ts tests the rule and that the function in force is this.
 */
import type { Knex } from 'knex';

/** The trigger function's body (PL/pgSQL, between the `$$`): what `pg_proc.prosrc` holds once installed. */
export const WEBHOOK_FAN_OUT_BODY = `
BEGIN
  IF NEW.type = 'webhook.test' THEN RETURN NULL; END IF;
  INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, next_attempt_at, created_at)
  SELECT random_base62_id('del'), NEW.tenant_id, e.id, NEW.id, NEW.type, now(), NEW.created_at
  FROM webhook_endpoints e
  WHERE e.tenant_id = NEW.tenant_id AND e.enabled AND e.deleted_at IS NULL
    AND ('*' = ANY (e.enabled_events) OR NEW.type = ANY (e.enabled_events));
  RETURN NULL;
END
`;

/** (Re)creates `webhook_fan_out()` from this module and the row trigger `events_webhook_fan_out` that runs it. */
export async function installWebhookFanOut(knex: Knex): Promise<void> {
  await knex.raw(`CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$${WEBHOOK_FAN_OUT_BODY}$$`);
  await knex.raw('DROP TRIGGER IF EXISTS events_webhook_fan_out ON events');
  await knex.raw('CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()');
}
