/**
 * Payment outcomes (docs/api.md section 8): `status`, `payment_provider`, `payment_plan_id` and
 * `amount_refunded` on payments (existing payments were all counted, so they are `succeeded`),
 * the database's own bounds on them, and the tenant-wide payments list (`GET /payments`).
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const ALL: CountedList = { table: 'payments', list: 'payments_all', parent: `''`, visible: 'true' };
const STATUSES = `'pending', 'succeeded', 'failed', 'canceled', 'refunded', 'partially_refunded'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments
      ADD COLUMN status text NOT NULL DEFAULT 'succeeded',
      ADD COLUMN payment_provider text,
      ADD COLUMN payment_plan_id text,
      ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0,
      ADD CONSTRAINT payments_status CHECK (status IN (${STATUSES})),
      ADD CONSTRAINT payments_amount_positive CHECK (amount > 0),
      ADD CONSTRAINT payments_refund_bounded CHECK (amount_refunded >= 0 AND amount_refunded <= amount)`);
  await knex.raw('CREATE INDEX payments_tenant_list ON payments (tenant_id, seq)');
  await knex.raw(`CREATE INDEX payments_pending ON payments (debt_id) WHERE status = 'pending'`);
  await createListCounter(knex, ALL);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, ALL);
  await knex.raw('DROP INDEX IF EXISTS payments_tenant_list, payments_pending');
  await knex.raw(`
    ALTER TABLE payments
      DROP CONSTRAINT payments_status, DROP CONSTRAINT payments_amount_positive, DROP CONSTRAINT payments_refund_bounded,
      DROP COLUMN status, DROP COLUMN payment_provider, DROP COLUMN payment_plan_id, DROP COLUMN amount_refunded`);
}
