/**
 * Stored idempotent responses dropped by an erasure (docs/api.md sections 3 and 20): when the
 * customer a stored response concerned is erased, its body and headers are removed and
 * `idempotency_keys.erased_at` set; a replay of the key then answers
 * `410 idempotency_response_erased` instead of the response. Adds a nullable column only: no row is
 * rewritten here, and rows stored before keep replaying as they did.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.timestamp('erased_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('erased_at');
  });
}
