/**
 * The event outbox (docs/api.md section 7): every change that tenants can subscribe to writes one
 * `events` row in the same transaction as the change, so an event exists exactly when its change
 * committed. The dispatcher fans events out to webhook endpoints from here.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('type').notNullable();
    t.text('api_version').notNullable();
    // The affected object as the API showed it right after the change.
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
  await knex.raw(`CREATE INDEX events_list ON events (tenant_id, seq)`);
  await knex.raw(`
    CREATE FUNCTION events_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN PERFORM bump_list_counter(NEW.tenant_id, 'events', '', 1);
      ELSE PERFORM bump_list_counter(OLD.tenant_id, 'events', '', -1); END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER events_count AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_count()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('events');
  await knex.raw('DROP FUNCTION IF EXISTS events_count');
}
