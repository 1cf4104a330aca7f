/**
 * Indexes found by the benchmarks (BENCHMARKS.md, `npm run bench`) at a million debts per tenant.
 *
 * - `debts_search_status_amount` (tenant_id, status, amount_remaining): the featured search
 *   `status:X AND amount_remaining>N` is one index range. Its `count(*)` for `X-Total-Count`
 *   becomes an index-only scan of exactly the matches (instead of a parallel sequential scan of
 *   the tenant's debts, or heap visits of every row of the status), and a selective query's page
 *   is the matches sorted, instead of walking the status range newest first and discarding the
 *   rows that fail the amount.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX debts_search_status_amount ON debts (tenant_id, status, amount_remaining)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_search_status_amount');
}
