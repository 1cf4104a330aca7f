/**
 * The index the worker's end of timed statuses walks (docs/api.md sections 9, 12 and 18):
 * `debts_pause_end` covered `paused` debts only; a legal protection (a breathing space) and the
 * 30-day contact pause of a vulnerability disclosure (`follow_up_required`) also end by
 * themselves at `pause_end_at`, so the partial index now covers the three statuses.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_pause_end');
  await knex.raw(`CREATE INDEX debts_pause_end ON debts (pause_end_at)
    WHERE status IN ('paused', 'legal_protection', 'follow_up_required') AND pause_end_at IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_pause_end');
  await knex.raw(`CREATE INDEX debts_pause_end ON debts (pause_end_at) WHERE status = 'paused' AND pause_end_at IS NOT NULL`);
}
