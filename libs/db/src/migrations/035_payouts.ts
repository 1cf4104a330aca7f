/**
 * Payouts (docs/api.md section 14): what the platform remits to an organisation, per currency.
 * - `payouts` (`po_`): one remittance, its totals kept beside its status; a CHECK keeps
 *   `amount = gross - refunds - fees + adjustments` and `amount >= 0`.
 * - `balance_items` (`bi_`): the immutable lines of a payout, Stripe's balance transactions as the
 *   model (`amount` gross, `fee`, `net = amount - fee`); each belongs to exactly one payout; one
 *   `payment` item per payment (a unique index), so no payment is paid out twice. No foreign keys
 *   on the item columns: a run inserts its items set-based in the transaction that inserts their
 *   payout, and a row trigger per item would cost more than the insert itself. An UPDATE is refused.
 * - `payout_accounts` (`pacc_`): one row per organisation and currency: when its next run is due
 *   and the signed amount carried into the next payout (a negative remainder, or a failed payout's
 *   money). Runs and operator moves lock it, so its changes are serial.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const LIST: CountedList = { table: 'payouts', list: 'payouts', parent: "''", visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE payouts (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      organisation_id text NOT NULL REFERENCES organisations(id),
      currency text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      status_reason text,
      status_whodunnit text,
      status_updated_at timestamptz NOT NULL DEFAULT now(),
      amount bigint NOT NULL,
      gross bigint NOT NULL,
      refunds bigint NOT NULL,
      fees bigint NOT NULL,
      adjustments bigint NOT NULL,
      item_count integer NOT NULL,
      period_start timestamptz NOT NULL,
      period_end timestamptz NOT NULL,
      payout_date date NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT payouts_status CHECK (status IN ('pending', 'in_transit', 'paid', 'failed')),
      CONSTRAINT payouts_currency CHECK (currency IN ('GBP', 'EUR', 'USD')),
      CONSTRAINT payouts_amount CHECK (amount >= 0 AND gross >= 0 AND refunds >= 0 AND fees >= 0 AND amount = gross - refunds - fees + adjustments)
    )`);
  await knex.raw('CREATE INDEX payouts_list ON payouts (tenant_id, seq)');
  await knex.raw('CREATE INDEX payouts_organisation ON payouts (organisation_id, currency, seq)');
  await knex.raw(`
    CREATE TABLE balance_items (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      payout_id text NOT NULL,
      organisation_id text NOT NULL,
      currency text NOT NULL,
      type text NOT NULL,
      amount bigint NOT NULL,
      fee bigint NOT NULL DEFAULT 0,
      net bigint NOT NULL,
      payment_id text,
      debt_id text,
      description text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT balance_items_type CHECK (type IN ('payment', 'refund', 'adjustment')),
      CONSTRAINT balance_items_net CHECK (fee >= 0 AND net = amount - fee),
      CONSTRAINT balance_items_sign CHECK ((type = 'payment' AND amount > 0) OR (type = 'refund' AND amount < 0 AND fee = 0) OR (type = 'adjustment' AND fee = 0))
    )`);
  await knex.raw('CREATE INDEX balance_items_payout ON balance_items (payout_id, seq)');
  await knex.raw(`CREATE UNIQUE INDEX balance_items_one_per_payment ON balance_items (payment_id) WHERE type = 'payment'`);
  await knex.raw(`CREATE INDEX balance_items_refunds ON balance_items (payment_id) WHERE type = 'refund'`);
  await knex.raw(`
    CREATE FUNCTION balance_items_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'balance items are immutable'; END $$`);
  await knex.raw('CREATE TRIGGER balance_items_immutable BEFORE UPDATE ON balance_items FOR EACH STATEMENT EXECUTE FUNCTION balance_items_immutable()');
  await knex.raw(`
    CREATE TABLE payout_accounts (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      organisation_id text NOT NULL REFERENCES organisations(id),
      currency text NOT NULL,
      carried bigint NOT NULL DEFAULT 0,
      next_run_at timestamptz NOT NULL,
      last_run_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT payout_accounts_unique UNIQUE (organisation_id, currency)
    )`);
  await knex.raw('CREATE INDEX payout_accounts_due ON payout_accounts (next_run_at)');
  await createListCounter(knex, LIST);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, LIST);
  await knex.raw('DROP TABLE payout_accounts');
  await knex.raw('DROP TABLE balance_items');
  await knex.raw('DROP FUNCTION balance_items_immutable()');
  await knex.raw('DROP TABLE payouts');
}
