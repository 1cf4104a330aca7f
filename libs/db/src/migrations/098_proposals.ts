/**
 * Proposals (docs/api.md section 18): `proposals` (`prp_`), a payment plan a customer proposed
 * outside the portal's policy, kept with the income and expenditure statement it was made with
 * for the tenant or an operator to accept or decline. Like every tenant table it carries
 * `tenant_id` (a test-mode tenant's proposals live under its own id, migration 050).
 *
 * - Terms: `instalment_amount` (minor units, > 0), `frequency`, `instalment_count` (> 0),
 *   `start_on` (the first payment date).
 * - `status` pending, accepted or declined; `decided_at`, `decline_reason`, `payment_plan_id`
 *   (the plan an acceptance created) and `decided_by` once decided; a decline has a reason.
 * - Indexes: the tenant's list `(tenant_id, seq)`; one pending proposal per debt (unique).
 * - Nothing existing changes: no debt had a proposal before.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const ALL: CountedList = { table: 'proposals', list: 'proposals', parent: "''", visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE proposals (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      debt_id text NOT NULL REFERENCES debts(id),
      customer_id text NOT NULL REFERENCES customers(id),
      income_and_expenditure_id text NOT NULL REFERENCES income_and_expenditures(id),
      currency char(3) NOT NULL,
      instalment_amount bigint NOT NULL CHECK (instalment_amount > 0),
      frequency text NOT NULL CHECK (frequency IN ('weekly', 'fortnightly', 'monthly')),
      instalment_count integer NOT NULL CHECK (instalment_count > 0),
      start_on date NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined')),
      decided_at timestamptz,
      decided_by text,
      decline_reason text,
      payment_plan_id text REFERENCES payment_plans(id),
      whodunnit text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'pending') = (decided_at IS NULL)),
      CHECK ((status = 'declined') = (decline_reason IS NOT NULL))
    )`);
  await knex.raw('CREATE INDEX proposals_list ON proposals (tenant_id, seq)');
  await knex.raw("CREATE UNIQUE INDEX proposals_one_pending ON proposals (debt_id) WHERE status = 'pending'");
  await createListCounter(knex, ALL);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, ALL);
  await knex.raw('DROP TABLE proposals');
}
