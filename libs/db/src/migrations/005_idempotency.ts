/**
 * Idempotency keys (docs/api.md section 3): one row per (tenant, client, key) remembering the request
 * fingerprint and, once the first request finished, its response. The primary key is what makes
 * the claim atomic across API instances: the first `INSERT … ON CONFLICT` wins, every other
 * instance sees the row (state `processing` → 409, `completed` → replay).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('client_id').notNullable();
    t.text('key').notNullable();
    // SHA-256 (hex) of the canonical JSON of method, path and body.
    t.text('fingerprint').notNullable();
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.text('state').notNullable();
    // Random token of the request holding the claim, so only that request can complete it.
    t.text('claim').notNullable();
    t.timestamp('locked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('response_status');
    t.jsonb('response_headers');
    // Text, not jsonb: a replay must return the very bytes of the first response (jsonb reorders keys).
    t.text('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['tenant_id', 'client_id', 'key']);
  });
  await knex.raw(`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state CHECK (state IN ('processing', 'completed'))`);
  // Expired rows are purged in small batches by expiry time.
  await knex.raw(`CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
