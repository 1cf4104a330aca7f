/**
 * The collection engine's intake claims walk an index each, in claim order, and stop after their
 * limit (docs/api.md section 13). `debts_engine_intake` covered the intake statuses and the
 * statuses that wait for a contact detail together; a claim that asked for both could not walk it
 * in order, so it read and sorted every debt of those statuses for each batch it took (a growing
 * cost per batch with a large book placed at once). The claims are now two, each with its index:
 * - `debts_engine_intake`: `prepared`, `adjusted` and `resumed` debts by `status_updated_at`;
 * - `debts_engine_waiting`: `enriching` and `contact_failed` debts by `status_updated_at`.
 * Only indexes change; no row is rewritten. Building them reads `debts` once each and blocks
 * writes to it meanwhile (seconds for a million debts), as every index migration here does.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_engine_intake');
  await knex.raw(`CREATE INDEX debts_engine_intake ON debts (status_updated_at) WHERE status IN ('prepared', 'adjusted', 'resumed')`);
  await knex.raw(`CREATE INDEX debts_engine_waiting ON debts (status_updated_at) WHERE status IN ('enriching', 'contact_failed')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_engine_waiting');
  await knex.raw('DROP INDEX IF EXISTS debts_engine_intake');
  await knex.raw(
    `CREATE INDEX debts_engine_intake ON debts (status_updated_at) WHERE status IN ('prepared', 'adjusted', 'resumed', 'enriching', 'contact_failed')`,
  );
}
