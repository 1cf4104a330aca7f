/**
 * Line items (docs/api.md section 8): a debt's balance becomes the sum of a ledger of signed,
 * immutable items, kept per kind in the debt's summary columns by the writing transaction.
 *
 * - `line_items`: kind and sign checked by the database (positive kinds > 0, credits < 0).
 * - debts: summary columns for VAT, discounts (credit + discount) and refunds (refund +
 *   creditor_refund); `amount_total`/`amount_remaining` recomputed over all of them; the CHECK
 *   `amount_remaining >= 0` replaces 001's non-negative parts (discounts are negative);
 *   status `whodunnit` and `context` (section 9) and a pause's `end_at`.
 * - every existing debt's breakdown becomes line items (`debt`, `interest`, `fee`), dated at the
 *   debt's creation, so its summary is unchanged.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const PARTS = 'amount_principal + amount_interest + amount_fees + amount_vat + amount_discounts + amount_refunds';
const OLD_PARTS = 'amount_principal + amount_interest + amount_fees';
const LIST: CountedList = { table: 'line_items', list: 'line_items', parent: 'R.debt_id', visible: 'true' };

/** Drops and re-adds the generated totals over `parts` (PostgreSQL cannot alter a generation expression in place before 17). */
async function totals(knex: Knex, parts: string): Promise<void> {
  await knex.raw('ALTER TABLE debts DROP COLUMN amount_remaining, DROP COLUMN amount_total');
  await knex.raw(`
    ALTER TABLE debts
      ADD COLUMN amount_total bigint GENERATED ALWAYS AS (${parts}) STORED,
      ADD COLUMN amount_remaining bigint GENERATED ALWAYS AS (${parts} - amount_paid) STORED`);
  // The search indexes of 003 and 006 went with the column.
  await knex.raw('CREATE INDEX debts_search_amount_remaining ON debts (tenant_id, amount_remaining)');
  await knex.raw('CREATE INDEX debts_search_status_amount ON debts (tenant_id, status, amount_remaining)');
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE debts DROP CONSTRAINT debts_amounts_nonnegative, DROP CONSTRAINT debts_not_overpaid');
  await knex.raw(`
    ALTER TABLE debts
      ALTER COLUMN amount_principal SET DEFAULT 0,
      ADD COLUMN amount_vat bigint NOT NULL DEFAULT 0,
      ADD COLUMN amount_discounts bigint NOT NULL DEFAULT 0,
      ADD COLUMN amount_refunds bigint NOT NULL DEFAULT 0,
      ADD COLUMN status_whodunnit text,
      ADD COLUMN status_context text,
      ADD COLUMN pause_end_at timestamptz`);
  await totals(knex, PARTS);
  await knex.raw(`
    ALTER TABLE debts
      ADD CONSTRAINT debts_amount_paid_nonnegative CHECK (amount_paid >= 0),
      ADD CONSTRAINT debts_amount_remaining_nonnegative CHECK (${PARTS} - amount_paid >= 0)`);
  // The worker's scan for pauses that end (section 9).
  await knex.raw(`CREATE INDEX debts_pause_end ON debts (pause_end_at) WHERE status = 'paused' AND pause_end_at IS NOT NULL`);

  await knex.schema.createTable('line_items', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.text('invoice_id');
    t.text('kind').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('description');
    t.timestamp('transaction_at', { useTz: true }).notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    ALTER TABLE line_items
      ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
      ADD CONSTRAINT line_items_signed CHECK (
        (kind IN ('debt', 'interest', 'fee', 'vat', 'refund') AND amount > 0) OR
        (kind IN ('credit', 'discount', 'creditor_refund') AND amount < 0))`);
  await knex.raw('CREATE INDEX line_items_list ON line_items (debt_id, seq)');

  // Existing breakdowns become items, oldest debts first so `seq` keeps their order.
  for (const [column, kind] of [
    ['amount_principal', 'debt'],
    ['amount_interest', 'interest'],
    ['amount_fees', 'fee'],
  ] as const) {
    await knex.raw(`
      INSERT INTO line_items (id, tenant_id, debt_id, kind, amount, currency, transaction_at, created_at, updated_at)
      SELECT random_base62_id('li'), tenant_id, id, '${kind}', ${column}, currency, created_at, created_at, created_at
      FROM debts WHERE ${column} > 0 ORDER BY seq`);
  }
  await createListCounter(knex, LIST);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, LIST);
  await knex.schema.dropTable('line_items');
  await knex.raw('DROP INDEX IF EXISTS debts_pause_end');
  await knex.raw('ALTER TABLE debts DROP CONSTRAINT debts_amount_paid_nonnegative, DROP CONSTRAINT debts_amount_remaining_nonnegative');
  await totals(knex, OLD_PARTS);
  await knex.raw(
    'ALTER TABLE debts DROP COLUMN amount_vat, DROP COLUMN amount_discounts, DROP COLUMN amount_refunds, DROP COLUMN status_whodunnit, DROP COLUMN status_context, DROP COLUMN pause_end_at',
  );
  await knex.raw('ALTER TABLE debts ALTER COLUMN amount_principal DROP DEFAULT');
  await knex.raw(`
    ALTER TABLE debts
      ADD CONSTRAINT debts_amounts_nonnegative CHECK (amount_principal >= 0 AND amount_interest >= 0 AND amount_fees >= 0 AND amount_paid >= 0),
      ADD CONSTRAINT debts_not_overpaid CHECK (amount_paid <= ${OLD_PARTS})`);
}
